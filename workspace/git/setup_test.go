package git

import (
	"context"
	"testing"
)

// loggedRepo opens the repository at dir through loggingGit: every git
// command the Repo runs is appended to log.
func loggedRepo(t *testing.T, dir string) (r *Repo, log string) {
	t.Helper()
	bin, log := loggingGit(t)
	r, err := Open(context.Background(), dir, Config{GitPath: bin})
	if err != nil {
		t.Fatal(err)
	}
	return r, log
}

// pulseStarted is a new workflow of r, name, on main, with its pulse p1
// started.
func pulseStarted(t *testing.T, r *Repo, name string) *Workflow {
	t.Helper()
	ctx := context.Background()
	wf, err := r.CreateWorkflow(ctx, name, "main")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wf.StartPulse(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	return wf
}
