package terminal

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

func TestValidCommitSummary(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" valid, else part of the error
	}{
		{"feat(auth): add token refresh", ""},
		{"fix: handle nil config", ""},
		{"refactor(core)!: drop the v1 API", ""},
		{"chore(deps): bump x\n\nbody text", ""},
		{"Add token refresh", "not a Conventional Commit"},
		{"feat add token", "not a Conventional Commit"},
		{"feat(): x", "malformed scope"},
		{"feat(x):  x", "needs a description"},
		{"feature(auth): add", `commit type "feature" is not accepted: use one of feat, fix`},
		{"feat(auth):", "not a Conventional Commit"},
		{"feat: " + strings.Repeat("x", 120), "keep it to 100 or fewer"},
	}
	for _, tt := range tests {
		err := ValidCommitSummary(tt.in)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("ValidCommitSummary(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

// FuzzValidCommitSummary: never panics; an accepted summary has a known
// type followed by an optional scope and ": description".
func FuzzValidCommitSummary(f *testing.F) {
	f.Add("feat(x): y")
	f.Add("fix!: z")
	f.Add("((((")
	f.Fuzz(func(t *testing.T, s string) {
		if ValidCommitSummary(s) != nil {
			return
		}
		first, _, _ := strings.Cut(strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n")), "\n")
		typ := first[:strings.IndexAny(first, "(!:")]
		ok := false
		for _, c := range git.CommitTypes() {
			ok = ok || c == typ
		}
		if !ok || !strings.Contains(first, ": ") {
			t.Fatalf("accepted %q", s)
		}
	})
}

func TestTerminalValidation(t *testing.T) {
	reg, err := tools.NewRegistry(append(ForRole("scoping"), append(ForRole("research")[0:2], append(ForRole("plan"), append(ForRole("pulsing")[:1], ForRole("review")...)...)...)...)...)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := tools.NewSession(tools.SessionConfig{Root: t.TempDir(), Mode: tools.ModeYolo})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	engine := tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler))
	tests := []struct {
		tool, args, want string
	}{
		{SubmitScope, `{"title":"T","description":"D","in_scope":["a"],"out_of_scope":[],"recommended_path":"medium","reason":"r"}`, `recommended_path \"medium\" is invalid`},
		{SubmitScope, `{"title":"T","description":"D","in_scope":[],"out_of_scope":[],"recommended_path":"full","reason":"r"}`, "in_scope needs at least one item"},
		{SubmitScope, `{"title":"T","description":"D","in_scope":["a"],"out_of_scope":[],"recommended_path":"full","reason":"r"}`, `"success":true`},
		{AskQuestions, `{"questions":[{"type":"single_select","prompt":"Which?","options":["a"]}],"reason":"r"}`, "needs at least two options"},
		{AskQuestions, `{"questions":[{"type":"poll","prompt":"Which?"}],"reason":"r"}`, `type \"poll\" is invalid`},
		{AskQuestions, `{"questions":[{"type":"free_text","prompt":"Why?"}],"reason":"r"}`, `"success":true`},
		{SubmitResearch, `{"summary":"S","keyFiles":[],"recommendations":["x"],"reason":"r"}`, "keyFiles needs at least one file"},
		{RequestExtension, `{"reason":"more","completed":[],"remaining":[]}`, "remaining needs at least one item"},
		{SubmitPlan, `{"approachSummary":"A","pulses":[{"id":"p1","title":"T","description":"D","expectedChanges":[],"estimatedSize":"small","dependsOn":["p2"]},{"id":"p2","title":"T","description":"D","expectedChanges":[],"estimatedSize":"small","dependsOn":["p1"]}],"reason":"r"}`, "dependency cycle"},
		{SubmitPlan, `{"approachSummary":"A","pulses":[{"id":"p1","title":"T","description":"D","expectedChanges":[],"estimatedSize":"huge"}],"reason":"r"}`, `estimatedSize \"huge\" is invalid`},
		{CompletePulse, `{"summary":"did stuff","filesChanged":[],"reason":"r"}`, "not a Conventional Commit"},
		{CompletePulse, `{"summary":"fix: x","filesChanged":[],"unresolvedIssues":[{"issue":"flaky","reason":" "}],"reason":"r"}`, "needs both issue and reason"},
		{CompleteReview, `{"recommendation":"approve","summary":"","reason":"r"}`, `"error":"Summary is required."`},
		{CompleteReview, `{"recommendation":"manual_review","summary":"needs eyes","reason":"r"}`, `"message":"Review completed successfully","recommendation":"manual_review","success":true`},
	}
	for _, tt := range tests {
		res, err := engine.Call(context.Background(), sess, tt.tool, json.RawMessage(tt.args))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Output, tt.want) {
			t.Errorf("%s %s → %s, want %s", tt.tool, tt.args, res.Output, tt.want)
		}
	}
}
