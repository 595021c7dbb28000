package workflow

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
)

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
	ed := &testkit.Editor{}
	s := NewSession(SessionConfig{Editor: ed})
	s.engine = &Engine{cfg: Config{Store: st}}
	ev := func(kind editor.EventKind, pulse, status, tool string) Event {
		return Event{Kind: kind, WorkflowID: wf.ID, Stage: string(StagePulsing), PulseID: pulse, Status: status, Tool: tool, Reason: "r", Text: pulse}
	}
	s.onEvent(ev(editor.EventPulse, "pulse-2", string(PulseRunning), ""))
	s.onEvent(ev(editor.EventPulse, "pulse-3", string(PulseRunning), ""))
	s.onEvent(ev(editor.EventToolCall, stored["pulse-3"], "", "write_file"))
	s.onEvent(ev(editor.EventToolCall, stored["pulse-2"], "", "read_file"))
	want := map[string][]string{"Autarch: pulse pulse-2 — pulse-2": {"read_file: r"}, "Autarch: pulse pulse-3 — pulse-3": {"write_file: r"}}
	if got := ed.OpenProgress(); !maps.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("open progress = %v, want %v", got, want)
	}
	s.onEvent(ev(editor.EventPulse, "pulse-2", string(PulseSucceeded), ""))
	if got := ed.OpenProgress(); len(got) != 1 || got["Autarch: pulse pulse-3 — pulse-3"] == nil {
		t.Fatalf("after pulse 2 ended, open progress = %v; want pulse 3's only", got)
	}
	s.onEvent(Event{Kind: editor.EventStage, WorkflowID: wf.ID, Stage: string(StageReview), Text: "pulsing → review"})
	if got := ed.OpenProgress(); len(got) != 0 {
		t.Errorf("after the stage changed, open progress = %v", got)
	}
}
