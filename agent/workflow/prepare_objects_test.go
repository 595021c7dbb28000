package workflow

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestRunPreparesTheObjectStoreAhead (issue 35): while a new workflow's
// early stages run, the repository's filtered object store (the git
// objects sandboxed commands see) is built in the background, as the
// worktrees are checked out, so that the first command of preflight does
// not wait for it (most of a minute on a 23k-file repository).
func TestRunPreparesTheObjectStoreAhead(t *testing.T) {
	dir := testkit.NewRepo(t, map[string]string{"main.go": "package main\n"})
	ctx := context.Background()
	e := benchEngine(t, dir, nil, nil)
	wf, err := e.Start(ctx, Task{Text: "prepare", Name: "prepare", Path: PathQuick})
	if err != nil {
		t.Fatal(err)
	}
	stop := e.prepareWorktrees(ctx, wf)
	defer stop()
	testkit.CheckFor(t, 60*time.Second, 20*time.Millisecond, func() error {
		states, err := filepath.Glob(filepath.Join(e.cfg.Repo.StateDir(), "sandbox-objects", "rules-*", "state.json"))
		if err != nil || len(states) == 0 {
			return fmt.Errorf("no filtered object store was built ahead (%v)", err)
		}
		return nil
	})
}
