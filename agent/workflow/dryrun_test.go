package workflow_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/trust"
)

var updateDryRun = flag.Bool("update", false, "rewrite the dry-run plan golden files in testdata/dryrun")

// repoFingerprint hashes everything a repository is: every file and
// directory under dir, .git included (HEAD, refs, the index, objects,
// config, worktree metadata), and git's own view of its HEAD, refs and
// worktrees. It lists the paths that exist so that a difference can be
// told.
func repoFingerprint(t *testing.T, dir string) (string, []string) {
	t.Helper()
	h := sha256.New()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		paths = append(paths, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			fmt.Fprintf(h, "dir %s %v\n", rel, info.Mode())
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "file %s %v %d %x\n", rel, info.Mode(), info.ModTime().UnixNano(), sha256.Sum256(b))
		return nil
	})
	must(t, err)
	for _, args := range [][]string{{"symbolic-ref", "HEAD"}, {"rev-parse", "HEAD"}, {"for-each-ref"}, {"worktree", "list", "--porcelain"}, {"stash", "list"}} {
		fmt.Fprintf(h, "git %v\n%s", args, gitOut(t, dir, args...))
	}
	return fmt.Sprintf("%x", h.Sum(nil)), paths
}

// A dry run of a whole quick workflow against the scripted model: the
// card is asked as usual, reads run on the user's files, writes and
// commands are only planned, the plan reads as the golden file says, and
// the repository is byte-identical afterwards: no worktree, no branch, no
// commit, no store under .git.
func TestDryRunQuickWorkflow(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/dryrun/quick-path.txt")
	must(t, err)
	var cfg scenarioConfig
	dir := t.TempDir()
	for _, f := range ar.Files {
		if f.Name == "config.json" {
			must(t, json.Unmarshal(f.Data, &cfg))
		}
		if rel, ok := strings.CutPrefix(f.Name, "repo/"); ok {
			p := filepath.Join(dir, rel)
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			must(t, os.WriteFile(p, f.Data, 0o644))
		}
	}
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "-c", "user.name=User", "-c", "user.email=user@example.com", "commit", "-q", "-m", "initial")
	script, err := scripted.Parse(txtar.Format(&txtar.Archive{Comment: ar.Comment, Files: steps(ar)}))
	must(t, err)
	url, model := scripted.Start(t, script)
	before, beforePaths := repoFingerprint(t, dir)

	ctx := context.Background()
	p, err := workflow.OpenDryRun(ctx, dir, trust.At(filepath.Join(t.TempDir(), "trust.json")))
	must(t, err)
	ed := &scriptEditor{t: t, approvals: cfg.Approvals}
	var events []workflow.Event
	e, err := p.Engine(ctx, workflow.Config{Editor: ed,
		Model:    openai.New(openai.Config{BaseURL: url, APIKey: "test", MaxRetries: -1}),
		Settings: agent.Settings{Model: "scripted", ContextWindow: 128000}, Mode: tools.ModeConfirmSensitive,
		StopPoll: 10 * time.Millisecond,
		Log:      slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Events:   func(ev workflow.Event) { events = append(events, ev) }})
	must(t, err)
	if !e.DryRun() {
		t.Fatal("an engine over OpenDryRun's project does not run dry")
	}
	wf, err := e.Start(ctx, workflow.Task{Text: cfg.Task, Name: cfg.Name})
	must(t, err)
	wf, err = e.Run(ctx, wf.ID)
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}
	if wf.Stage != string(workflow.StageDone) || wf.Status != store.WorkflowCompleted || !strings.Contains(wf.StatusReason, "dry run completed: 5 actions planned") {
		t.Errorf("workflow ended in %s, %s (%s); want done, Completed, dry run completed", wf.Stage, wf.Status, wf.StatusReason)
	}
	plan := e.Plan(wf.ID)
	must(t, p.Close())

	if after, afterPaths := repoFingerprint(t, dir); after != before {
		t.Errorf("the dry run changed the repository:\nbefore %q\nafter  %q", beforePaths, afterPaths)
	}
	if got := strings.Join(ed.kinds(), ","); got != "scope" {
		t.Errorf("approvals asked = %q, want only the scope card (recorded calls are not confirmed)", got)
	}
	if errs := model.Errors(); len(errs) > 0 {
		t.Errorf("model script mismatches:\n%s", strings.Join(errs, "\n"))
	}
	if n := model.Remaining(); n != 0 {
		t.Errorf("%d scripted model steps were not used", n)
	}
	for _, ev := range events {
		if ev.Kind == "pulse" && ev.Status == string(workflow.PulseSucceeded) && !strings.Contains(ev.Text, "dry run: nothing committed") {
			t.Errorf("pulse event %q does not say nothing was committed", ev.Text)
		}
	}
	got := plan.Summary()
	golden := "testdata/dryrun/quick-path.golden"
	if *updateDryRun {
		must(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	must(t, err)
	if got != string(want) {
		t.Errorf("plan summary differs from %s (go test ./agent/workflow -run TestDryRunQuickWorkflow -update):\n%s", golden, got)
	}
}
