package workflow

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
)

// progressEditor records progress items; the rest of editor.Client is
// not used by onEvent's progress (nil: a call would fail the test loudly).
type progressEditor struct {
	editor.Client
	mu    sync.Mutex
	items []*progressItem
}

type progressItem struct {
	title   string
	reports []string
	ended   bool
	cancel  chan struct{}
}

func (e *progressEditor) StartProgress(_ context.Context, title string, _ bool) (editor.Progress, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	it := &progressItem{title: title, cancel: make(chan struct{})}
	e.items = append(e.items, it)
	return &recordedProgress{e: e, it: it}, nil
}
func (e *progressEditor) Notify(context.Context, string, any) error                    { return nil }
func (e *progressEditor) LogMessage(context.Context, editor.MessageType, string) error { return nil }

// open lists the titles of the items not ended, with their reports.
func (e *progressEditor) open() map[string][]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string][]string{}
	for _, it := range e.items {
		if !it.ended {
			out[it.title] = slices.Clone(it.reports)
		}
	}
	return out
}

type recordedProgress struct {
	e  *progressEditor
	it *progressItem
}

func (p *recordedProgress) Report(_ context.Context, msg string, _ int) error {
	p.e.mu.Lock()
	defer p.e.mu.Unlock()
	p.it.reports = append(p.it.reports, msg)
	return nil
}
func (p *recordedProgress) End(context.Context, string) error {
	p.e.mu.Lock()
	defer p.e.mu.Unlock()
	p.it.ended = true
	return nil
}
func (p *recordedProgress) Cancelled() <-chan struct{} { return p.it.cancel }

// Parallel pulses have one progress item each: a pulse's agent reports to
// its own, a pulse ending ends only its own, and a stage change ends all.
func TestProgressPerRunningPulse(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	wf := store.Workflow{Name: "par", Stage: string(StagePulsing)}
	if err := st.CreateWorkflow(ctx, &wf); err != nil {
		t.Fatal(err)
	}
	stored := map[string]string{}
	for _, id := range []string{"pulse-2", "pulse-3"} {
		p := store.Pulse{WorkflowID: wf.ID, PlannedID: id}
		if err := st.AddPulse(ctx, &p); err != nil {
			t.Fatal(err)
		}
		stored[id] = p.ID
	}
	ed := &progressEditor{}
	s := NewService(ServiceConfig{Editor: ed})
	s.engine = &Engine{cfg: Config{Store: st}}
	ev := func(kind editor.EventKind, pulse, status, tool string) Event {
		return Event{Kind: kind, WorkflowID: wf.ID, Stage: string(StagePulsing), PulseID: pulse, Status: status, Tool: tool, Reason: "r", Text: pulse}
	}
	s.onEvent(ev(editor.EventPulse, "pulse-2", string(PulseRunning), ""))
	s.onEvent(ev(editor.EventPulse, "pulse-3", string(PulseRunning), ""))
	s.onEvent(ev(editor.EventToolCall, stored["pulse-3"], "", "write_file"))
	s.onEvent(ev(editor.EventToolCall, stored["pulse-2"], "", "read_file"))
	want := map[string][]string{"Autarch: pulse pulse-2 — pulse-2": {"read_file: r"}, "Autarch: pulse pulse-3 — pulse-3": {"write_file: r"}}
	if got := ed.open(); !maps.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("open progress = %v, want %v", got, want)
	}
	s.onEvent(ev(editor.EventPulse, "pulse-2", string(PulseSucceeded), ""))
	if got := ed.open(); len(got) != 1 || got["Autarch: pulse pulse-3 — pulse-3"] == nil {
		t.Fatalf("after pulse 2 ended, open progress = %v; want pulse 3's only", got)
	}
	s.onEvent(Event{Kind: editor.EventStage, WorkflowID: wf.ID, Stage: string(StageReview), Text: "pulsing → review"})
	if got := ed.open(); len(got) != 0 {
		t.Errorf("after the stage changed, open progress = %v", got)
	}
}
