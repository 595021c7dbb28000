package review

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
)

// storeBackend is a Backend over the real workflow store (a temporary
// SQLite file) and its validator, mapping errors as the workflow's backend
// does: a comment the validator refuses, or a missing review card, is
// Invalid; anything else is the store's failure.
type storeBackend struct {
	diff     string
	scope    *Scope
	st       *store.Store
	reviewID string
}

func (b *storeBackend) Diff(context.Context) (string, error) {
	if b.diff == "" {
		return "", ErrNoDiff
	}
	return b.diff, nil
}

func (b *storeBackend) ScopeCard(context.Context) (Scope, error) {
	if b.scope == nil {
		return Scope{}, ErrNoScope
	}
	return *b.scope, nil
}

func (b *storeBackend) AddComment(ctx context.Context, c Comment) (string, error) {
	rc := store.ReviewComment{ReviewID: b.reviewID, Type: store.CommentType(c.Type), FilePath: c.FilePath, StartLine: c.StartLine,
		EndLine: c.EndLine, Severity: c.Severity, Category: c.Category, Description: c.Description, Suggestion: c.Suggestion}
	if err := store.CheckComment(rc); err != nil {
		return "", &Invalid{Msg: err.Error()}
	}
	err := b.st.AddComment(ctx, &rc)
	if errors.Is(err, store.ErrReviewNotFound) {
		return "", &Invalid{Msg: err.Error()}
	}
	return rc.ID, err
}

// backend options for newStoreBackend.
type backendOpt func(*storeBackend)

func withDiff(d string) backendOpt { return func(b *storeBackend) { b.diff = d } }
func withScope(s Scope) backendOpt { return func(b *storeBackend) { b.scope = &s } }
func noCard() backendOpt           { return func(b *storeBackend) { b.reviewID = "review-missing" } }
func brokenStore() backendOpt      { return func(b *storeBackend) { b.st.Close() } }

// newStoreBackend opens a store on a temporary file with one pending review.
func newStoreBackend(t *testing.T, opts ...backendOpt) *storeBackend {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	card := store.ReviewCard{BaseRef: "main", HeadRef: "feature"}
	if err := st.CreateReview(ctx, &card); err != nil {
		t.Fatal(err)
	}
	b := &storeBackend{st: st, reviewID: card.ID}
	for _, o := range opts {
		o(b)
	}
	return b
}

func TestReviewTools(t *testing.T) {
	tests := []struct {
		name    string
		opts    []backendOpt
		tool    string
		args    string
		want    string
		failed  bool
		infraOK bool // a Go error is expected
	}{
		{"diff", []backendOpt{withDiff("diff --git a/x b/x\n")}, "get_diff", `{}`, `{"diff":"diff --git a/x b/x\n","success":true}`, false, false},
		{"no diff", nil, "get_diff", `{}`, `{"error":"Diff artifact not found"}`, true, false},
		{"scope", []backendOpt{withScope(Scope{Title: "T", InScope: []string{"a"}})}, "get_scope_card", `{}`,
			`{"constraints":[],"description":"","in_scope":["a"],"out_of_scope":[],"success":true,"title":"T"}`, false, false},
		{"no scope", nil, "get_scope_card", `{}`, `{"error":"Scope card not found"}`, true, false},
		{"line comment", nil, "add_line_comment", `{"file_path":"a.go","start_line":3,"end_line":4,"severity":"High","category":"bug","description":"d","suggestion":"x := 1"}`,
			`{"comment_id":"*","message":"Line comment added successfully","success":true}`, false, false},
		{"bad severity", nil, "add_line_comment", `{"file_path":"a.go","start_line":3,"severity":"Critical","category":"bug","description":"d"}`,
			`{"error":"Invalid severity 'Critical'. Must be High, Medium, or Low.","success":false}`, true, false},
		{"no file", nil, "add_line_comment", `{"file_path":"","start_line":3,"severity":"Low","category":"bug","description":"d"}`,
			`{"error":"file_path is required for line comments","success":false}`, true, false},
		{"line zero", nil, "add_line_comment", `{"file_path":"a.go","start_line":0,"severity":"Low","category":"bug","description":"d"}`,
			`{"error":"start_line must be a positive integer","success":false}`, true, false},
		{"end before start", nil, "add_line_comment", `{"file_path":"a.go","start_line":5,"end_line":4,"severity":"Low","category":"bug","description":"d"}`,
			`{"error":"end_line must be greater than or equal to start_line","success":false}`, true, false},
		{"file comment", nil, "add_file_comment", `{"file_path":"a.go","severity":"Low","category":"style","description":"d"}`,
			`{"comment_id":"*","message":"File comment added successfully","success":true}`, false, false},
		{"review comment", nil, "add_review_comment", `{"severity":"Medium","category":"architecture","description":"d"}`,
			`{"comment_id":"*","message":"Review comment added successfully","success":true}`, false, false},
		{"file comment without a file", nil, "add_file_comment", `{"file_path":" ","severity":"Low","category":"style","description":"d"}`,
			`{"error":"file_path is required for file comments","success":false}`, true, false},
		{"review comment, bad severity", nil, "add_review_comment", `{"severity":"Critical","category":"architecture","description":"d"}`,
			`{"error":"Invalid severity 'Critical'. Must be High, Medium, or Low.","success":false}`, true, false},
		{"no review card", []backendOpt{noCard()}, "add_review_comment", `{"severity":"Medium","category":"architecture","description":"d"}`,
			`{"error":"Review card not found","success":false}`, true, false},
		{"broken store", []backendOpt{brokenStore()}, "add_review_comment", `{"severity":"Medium","category":"x","description":"d"}`, "", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newStoreBackend(t, tc.opts...)
			res, err := callTool(t, b, tc.tool, tc.args)
			if tc.infraOK {
				if err == nil {
					t.Fatalf("want a Go error for broken infrastructure, got %s", res.Output)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := commentID.ReplaceAllString(res.Output, `"comment_id":"*"`)
			if got != tc.want || res.Failed != tc.failed {
				t.Errorf("%s(%s) = %s (failed %v), want %s (failed %v)", tc.tool, tc.args, res.Output, res.Failed, tc.want, tc.failed)
			}
		})
	}
}

// TestReviewToolsStore: what a tool adds is what the store holds; what the
// validator refuses is not stored.
func TestReviewToolsStore(t *testing.T) {
	ctx := context.Background()
	b := newStoreBackend(t)
	res, err := callTool(t, b, "add_line_comment", `{"file_path":"a.go","start_line":2,"severity":"Low","category":"bug","description":"d","suggestion":"y"}`)
	if err != nil || res.Failed {
		t.Fatalf("add_line_comment = %+v, %v", res, err)
	}
	if _, err := callTool(t, b, "add_line_comment", `{"file_path":"a.go","start_line":2,"severity":"Low","category":"","description":"d"}`); err != nil {
		t.Fatal(err)
	}
	stored, err := b.st.Comments(ctx, b.reviewID)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 1 || stored[0].Suggestion != "y" || stored[0].EndLine != 0 || stored[0].Type != store.CommentLine ||
		!strings.Contains(res.Output, `"comment_id":"`+stored[0].ID+`"`) {
		t.Errorf("stored = %+v after %s", stored, res.Output)
	}
}

// commentID is the comment id in a tool's answer (random per comment).
var commentID = regexp.MustCompile(`"comment_id":"[^"]*"`)

// callTool runs one review tool over b through the engine.
func callTool(t *testing.T, b Backend, tool, args string) (tools.Result, error) {
	t.Helper()
	reg, err := tools.NewRegistry(Tools(b)...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tools.NewSession(tools.SessionConfig{Root: t.TempDir(), Role: "review", Mode: tools.ModeYolo})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		t.Fatal(err)
	}
	return tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler)).Call(context.Background(), s, tool, testkit.ToolArgs(t, m))
}
