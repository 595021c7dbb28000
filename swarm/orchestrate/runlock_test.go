package orchestrate

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/editor"
)

// TestRunLockIsTheKernels: a swarm's run lock is the run kernel's
// (kernel.Lock): while another holder has it the swarm is listed as
// running and Run answers ErrBusy (a kernel.ErrLocked) without running;
// once it is free the swarm is listed as stopped (interrupted) and runs.
// The swarm's status maps onto the kernel's.
func TestRunLockIsTheKernels(t *testing.T) {
	w := newWorld(t, "")
	o := w.newOrchestrator(Config{Model: readThenDone{}, DefaultModel: "m", Arbiter: func(string) Arbiter { return NewInbox() }})
	defer o.Close()
	ctx := context.Background()
	st := startSwarm(t, o, Options{Task: "look", Agents: []editor.SwarmAgent{{Name: "explorer", Role: RoleExplorer}}, Rounds: 1, Arbiter: "human"})
	if ref := st.Ref(); ref.Kind != kernel.KindSwarm || ref.ID != st.ID || st.RunStatus() != kernel.Running {
		t.Errorf("ref %+v, status %s; want a swarm run %s, Running", ref, st.RunStatus(), st.ID)
	}
	unlock, err := kernel.Lock(lockPath(filepath.Join(Dir(w.repo.StateDir()), st.ID)), 0)
	if err != nil {
		t.Fatal(err)
	}
	if list, err := List(w.repo.StateDir()); err != nil || len(list) != 1 || list[0].Status != StatusRunning {
		t.Errorf("listed while locked: %+v, %v; want it running", list, err)
	}
	if _, err := o.Run(ctx, st.ID); !errors.Is(err, ErrBusy) || !kernel.IsLocked(err) {
		t.Fatalf("run while another holds the lock: %v, want ErrBusy (a kernel.ErrLocked)", err)
	}
	unlock()
	if list, err := List(w.repo.StateDir()); err != nil || len(list) != 1 || list[0].Status != StatusStopped || list[0].RunStatus() != kernel.Stopped {
		t.Errorf("listed once free: %+v, %v; want it stopped (interrupted)", list, err)
	}
	if st, err = o.Run(ctx, st.ID); err != nil || st.Status != StatusDone || st.RunStatus() != kernel.Done {
		t.Fatalf("run once free: %v (%s: %s)", err, st.Status, st.Reason)
	}
}
