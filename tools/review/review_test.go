package review

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools"
)

// fakeBackend validates like the workflow's backend (the spec's strings)
// and records what it stored.
type fakeBackend struct {
	diff   string
	scope  *Scope
	stored []Comment
	noCard bool
	broken bool
}

func (f *fakeBackend) Diff(context.Context) (string, error) {
	if f.diff == "" {
		return "", ErrNoDiff
	}
	return f.diff, nil
}

func (f *fakeBackend) ScopeCard(context.Context) (Scope, error) {
	if f.scope == nil {
		return Scope{}, ErrNoScope
	}
	return *f.scope, nil
}

func (f *fakeBackend) AddComment(_ context.Context, c Comment) (string, error) {
	switch {
	case f.broken:
		return "", errors.New("disk full")
	case f.noCard:
		return "", &Invalid{Msg: "Review card not found"}
	case c.Severity != "High" && c.Severity != "Medium" && c.Severity != "Low":
		return "", &Invalid{Msg: "Invalid severity '" + c.Severity + "'. Must be High, Medium, or Low."}
	case c.Type == "line" && c.FilePath == "":
		return "", &Invalid{Msg: "file_path is required for line comments"}
	case c.Type == "line" && c.StartLine <= 0:
		return "", &Invalid{Msg: "start_line must be a positive integer"}
	}
	f.stored = append(f.stored, c)
	return "c1", nil
}

func TestReviewTools(t *testing.T) {
	tests := []struct {
		name    string
		b       *fakeBackend
		tool    string
		args    string
		want    string
		failed  bool
		infraOK bool // a Go error is expected
	}{
		{"diff", &fakeBackend{diff: "diff --git a/x b/x\n"}, "get_diff", `{}`, `{"diff":"diff --git a/x b/x\n","success":true}`, false, false},
		{"no diff", &fakeBackend{}, "get_diff", `{}`, `{"error":"Diff artifact not found"}`, true, false},
		{"scope", &fakeBackend{scope: &Scope{Title: "T", InScope: []string{"a"}}}, "get_scope_card", `{}`,
			`{"constraints":[],"description":"","in_scope":["a"],"out_of_scope":[],"success":true,"title":"T"}`, false, false},
		{"no scope", &fakeBackend{}, "get_scope_card", `{}`, `{"error":"Scope card not found"}`, true, false},
		{"line comment", &fakeBackend{}, "add_line_comment", `{"file_path":"a.go","start_line":3,"end_line":4,"severity":"High","category":"bug","description":"d","suggestion":"x := 1"}`,
			`{"comment_id":"c1","message":"Line comment added successfully","success":true}`, false, false},
		{"bad severity", &fakeBackend{}, "add_line_comment", `{"file_path":"a.go","start_line":3,"severity":"Critical","category":"bug","description":"d"}`,
			`{"error":"Invalid severity 'Critical'. Must be High, Medium, or Low.","success":false}`, true, false},
		{"no file", &fakeBackend{}, "add_line_comment", `{"file_path":"","start_line":3,"severity":"Low","category":"bug","description":"d"}`,
			`{"error":"file_path is required for line comments","success":false}`, true, false},
		{"line zero", &fakeBackend{}, "add_line_comment", `{"file_path":"a.go","start_line":0,"severity":"Low","category":"bug","description":"d"}`,
			`{"error":"start_line must be a positive integer","success":false}`, true, false},
		{"end before start", &fakeBackend{}, "add_line_comment", `{"file_path":"a.go","start_line":5,"end_line":4,"severity":"Low","category":"bug","description":"d"}`,
			`{"error":"end_line must be greater than or equal to start_line","success":false}`, true, false},
		{"file comment", &fakeBackend{}, "add_file_comment", `{"file_path":"a.go","severity":"Low","category":"style","description":"d"}`,
			`{"comment_id":"c1","message":"File comment added successfully","success":true}`, false, false},
		{"review comment", &fakeBackend{}, "add_review_comment", `{"severity":"Medium","category":"architecture","description":"d"}`,
			`{"comment_id":"c1","message":"Review comment added successfully","success":true}`, false, false},
		{"no review card", &fakeBackend{noCard: true}, "add_review_comment", `{"severity":"Medium","category":"architecture","description":"d"}`,
			`{"error":"Review card not found","success":false}`, true, false},
		{"broken store", &fakeBackend{broken: true}, "add_review_comment", `{"severity":"Medium","category":"x","description":"d"}`, "", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg, err := tools.NewRegistry(Tools(tc.b)...)
			if err != nil {
				t.Fatal(err)
			}
			s, err := tools.NewSession(tools.SessionConfig{Root: t.TempDir(), Role: "review", Mode: tools.ModeYolo})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var args map[string]any
			json.Unmarshal([]byte(tc.args), &args)
			args["reason"] = "test"
			raw, _ := json.Marshal(args)
			res, err := tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler)).Call(context.Background(), s, tc.tool, raw)
			if tc.infraOK {
				if err == nil {
					t.Fatalf("want a Go error for broken infrastructure, got %s", res.Output)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Output != tc.want || res.Failed != tc.failed {
				t.Errorf("%s(%s) = %s (failed %v), want %s (failed %v)", tc.tool, tc.args, res.Output, res.Failed, tc.want, tc.failed)
			}
		})
	}
	b := &fakeBackend{}
	reg, _ := tools.NewRegistry(Tools(b)...)
	s, _ := tools.NewSession(tools.SessionConfig{Root: t.TempDir(), Role: "review", Mode: tools.ModeYolo})
	defer s.Close()
	tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler)).Call(context.Background(), s, "add_line_comment",
		json.RawMessage(`{"reason":"r","file_path":"a.go","start_line":2,"severity":"Low","category":"bug","description":"d","suggestion":"y"}`))
	if len(b.stored) != 1 || b.stored[0].Suggestion != "y" || b.stored[0].EndLine != 0 || !strings.EqualFold(b.stored[0].Type, "line") {
		t.Errorf("stored = %+v", b.stored)
	}
}
