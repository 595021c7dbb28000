package workflow

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

// TestRunPreparesTheObjectStoreAhead (issue 35): while a new workflow's
// early stages run, the repository's filtered object store (the git
// objects sandboxed commands see) is built in the background, as the
// worktrees are checked out, so that the first command of preflight does
// not wait for it (most of a minute on a 23k-file repository).
func TestRunPreparesTheObjectStoreAhead(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-q", "-m", "one"}} {
		if args[0] == "add" {
			if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	ctx := context.Background()
	repo, err := git.Open(ctx, dir, git.Config{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, store.Path(repo.StateDir()), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := New(Config{Store: st, Repo: repo, Editor: &editor.Terminal{AutoApprove: true, Out: &strings.Builder{}},
		Model: openai.New(openai.Config{BaseURL: "http://127.0.0.1:9", APIKey: "none", MaxRetries: -1}), Settings: agent.Settings{Model: "none"}, Mode: tools.ModeYolo, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	wf, err := e.Start(ctx, Task{Text: "prepare", Name: "prepare", Path: PathQuick})
	if err != nil {
		t.Fatal(err)
	}
	stop := e.prepareWorktrees(ctx, wf)
	defer stop()
	testkit.CheckFor(t, 60*time.Second, 20*time.Millisecond, func() error {
		states, err := filepath.Glob(filepath.Join(repo.StateDir(), "sandbox-objects", "rules-*", "state.json"))
		if err != nil || len(states) == 0 {
			return fmt.Errorf("no filtered object store was built ahead (%v)", err)
		}
		return nil
	})
}
