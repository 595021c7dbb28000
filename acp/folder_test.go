package acp

import (
	"context"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/autarch-dev/autarch/editor"
)

// fakeClient is the client side of a connection: it records what it is
// sent and answers permission requests with the option it is told.
type fakeClient struct {
	mu       sync.Mutex
	answer   string // option id chosen ("": cancelled)
	asked    []sdk.RequestPermissionRequest
	received []sdk.SessionNotification
}

func (c *fakeClient) SessionUpdate(ctx context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.received = append(c.received, n)
	return nil
}

func (c *fakeClient) RequestPermission(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, r)
	if c.answer == "" {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(c.answer))}, nil
}

func (c *fakeClient) ReadTextFile(ctx context.Context, r sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{Content: "unsaved " + r.Path}, nil
}

func (c *fakeClient) requests() []sdk.RequestPermissionRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.RequestPermissionRequest(nil), c.asked...)
}

func TestTrustQuestionWaitsForATurn(t *testing.T) {
	a := testAgent(t)
	c := &fakeClient{answer: optApprove}
	a.connect(c)
	f, err := a.folder(gitRepo(t), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := a.addSession(f, record{ID: "acp-1", Mode: ModeDiscuss})
	got := make(chan editor.Verdict, 1)
	go func() {
		v, _ := f.Approve(context.Background(), editor.Approval{Kind: "trust", Title: "Trust this repository's configuration?"})
		got <- v
	}()
	select {
	case v := <-got:
		t.Fatalf("answered %+v with no turn to ask in", v)
	case <-time.After(100 * time.Millisecond):
	}
	turn, err := s.begin(func() {})
	if err != nil {
		t.Fatal(err)
	}
	f.began()
	select {
	case v := <-got:
		if v.Decision != editor.DecisionApprove {
			t.Errorf("trust decided %+v, want approve", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the trust question was not asked when the turn began")
	}
	s.end(turn)
	if r := c.requests(); len(r) != 1 || r[0].SessionId != "acp-1" || *r[0].ToolCall.Title != "Trust this repository's configuration?" {
		t.Errorf("permission requests %+v", r)
	}
	// Another process's workflow gets no answer here, and does not wait.
	v, err := f.Approve(context.Background(), editor.Approval{Kind: "plan", WorkflowID: "wf-elsewhere"})
	if err != nil || v.Decision != editor.DecisionDismissed {
		t.Errorf("approval of an unknown workflow: %+v %v", v, err)
	}
}

func TestAsk(t *testing.T) {
	a := testAgent(t)
	c := &fakeClient{answer: "choice-1"}
	a.connect(c)
	f, err := a.folder(gitRepo(t), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	a.addSession(f, record{ID: "acp-2", Mode: ModeWorkflow, WorkflowID: "wf-1"})
	ctx := editor.WithWorkflow(context.Background(), "wf-1")
	single := []editor.Question{{Type: editor.SingleSelect, Prompt: "Which store?", Options: []string{"SQLite", "Postgres"}}}
	got, err := f.Ask(ctx, single)
	if err != nil || len(got) != 1 || got[0].Values[0] != "Postgres" {
		t.Errorf("single choice: %+v %v", got, err)
	}
	// Several questions, or free text, wait for the next prompt.
	for _, qs := range [][]editor.Question{
		{single[0], {Type: editor.FreeText, Prompt: "Why?"}},
		{{Type: editor.FreeText, Prompt: "Why?"}},
		{{Type: editor.MultiSelect, Prompt: "Which?", Options: []string{"a", "b"}}},
	} {
		got, err := f.Ask(ctx, qs)
		if err != nil || len(got) != len(qs) || !got[0].Dismissed {
			t.Errorf("%d questions (%s): %+v %v", len(qs), qs[0].Type, got, err)
		}
	}
	// A cancelled choice leaves the question pending.
	c.answer = ""
	if got, _ := f.Ask(ctx, single); !got[0].Dismissed {
		t.Errorf("cancelled choice answered %+v", got)
	}
	if n := len(c.requests()); n != 2 {
		t.Errorf("%d permission requests, want 2 (the single choices)", n)
	}
	// The client's buffer is read through fs/read_text_file only when offered.
	if _, ok := f.document("/r/main.go"); ok {
		t.Error("read a buffer the client did not offer")
	}
	a.caps.Fs.ReadTextFile = true
	if text, ok := f.document("/r/main.go"); !ok || text != "unsaved /r/main.go" {
		t.Errorf("document = %q %v", text, ok)
	}
}
