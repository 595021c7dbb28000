package workflow_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace/git"
)

// TestWholeRunAttack runs a whole workflow (testdata/attack/whole-run.txt)
// whose agent tries every class of the second trust pass from its shell,
// then checks what only Autarch's own hands could have done: no planted
// program ran on the host (a marker file outside the sandbox), the user's
// refs, packed-refs, history (git fsck), HEAD, index and working tree and
// the trust store are as before, the workflow branch carries no nested
// repository, gitlink or planted configuration, and no secret value —
// committed, in Autarch's state or in its environment — appears in any
// request the model received, however the agent transformed it.
func TestWholeRunAttack(t *testing.T) {
	env := testkit.NewAttack(t)
	secrets, trustFile, marker := env.Secrets, env.TrustFile, env.Marker

	sc := testkit.ParseScenario("testdata/attack/whole-run.txt", []byte(env.ReadScript(t, "testdata/attack/whole-run.txt")))
	var cfg scenarioConfig
	sc.Decode(t, &cfg, nil)
	h := newHarness(t, sc, cfg)
	env.PlantNATSAuth(t, h.repo.StateDir()) // Autarch's own state

	before := snapshotUserRepo(t, h.dir)
	trustBefore, err := os.ReadFile(trustFile)
	must(t, err)

	ctx := context.Background()
	wf, err := h.engine.Start(ctx, workflow.Task{Text: cfg.Task, Name: cfg.Name, Path: workflow.Path(cfg.Path)})
	must(t, err)
	wf, err = h.engine.Run(ctx, wf.ID)
	if err != nil {
		t.Errorf("run: %v", err)
	}
	if wf.Stage != "done" || wf.Status != "Completed" {
		t.Errorf("the workflow ended in stage %s, status %s (%s): the attack must be refused without breaking the run", wf.Stage, wf.Status, wf.StatusReason)
	}

	if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a program the agent planted ran on the host (%s exists)", marker)
	}
	after := snapshotUserRepo(t, h.dir)
	for _, k := range slices.Sorted(mapsKeys(before)) {
		if before[k] != after[k] {
			t.Errorf("the user's repository changed: %s\nbefore:\n%s\nafter:\n%s", k, before[k], after[k])
		}
	}
	if trustAfter, err := os.ReadFile(trustFile); err != nil || string(trustAfter) != string(trustBefore) {
		t.Errorf("the trust store changed: %q → %q (%v)", trustBefore, trustAfter, err)
	}
	if out, err := exec.Command("git", "-C", h.dir, "fsck", "--full", "--no-dangling").CombinedOutput(); err != nil {
		t.Errorf("git fsck of the user's repository: %v\n%s", err, out)
	}
	branch := git.WorkflowBranch(wf.Name)
	tree := testkit.Git(t, h.dir, "ls-tree", "-r", "--full-tree", branch)
	for _, line := range strings.Split(strings.TrimSpace(tree), "\n") {
		mode, _, _ := strings.Cut(line, " ")
		_, path, _ := strings.Cut(line, "\t")
		top, _, _ := strings.Cut(path, "/")
		if mode == "160000" || slices.Contains([]string{".autarch", ".mcp.json", "sub", "inc", "viafile", "gd"}, top) || strings.HasSuffix(path, "/.git") {
			t.Errorf("the workflow branch carries what the agent planted: %s", line)
		}
	}

	h.mu.Lock()
	var told bool
	for _, ev := range h.events {
		if ev.Kind == "pulse" && strings.Contains(ev.Text, "Not committed:") && strings.Contains(ev.Text, "sub/ is a nested git repository") {
			told = true
		}
	}
	h.mu.Unlock()
	if !told {
		t.Error("no pulse event tells the user what the checkpoint left out (the nested repositories)")
	}
	if n := len(h.model.Bodies()); n < 10 {
		t.Fatalf("the model received %d requests; the script has 14 steps", n)
	}
	// The attacks ran: their output came back, with committed secrets
	// read as the object store's placeholder (reversed by rev in the
	// attack), planted configuration removed.
	withheld := h.model.Received("content is withheld from commands") || h.model.Received("sdnammoc morf dlehhtiw si tnetnoc") // rev
	if !withheld || !h.model.Received("Autarch removed it") {
		t.Error("the model never saw the attacks' output (the placeholder of a withheld blob, the removal of planted configuration): did they run?")
	}
	for _, leak := range h.model.Leaks(secrets) {
		t.Error(leak)
	}
}

// snapshotUserRepo records what of the user's repository no agent may
// change: every ref outside Autarch's own namespaces (autarch/…,
// autarch-pulse/…, the receipts' refs/notes/autarch), packed-refs, replace refs, HEAD, the index and the
// working tree.
func snapshotUserRepo(t *testing.T, dir string) map[string]string {
	t.Helper()
	var refs []string
	for _, line := range strings.Split(testkit.Git(t, dir, "for-each-ref", "--format=%(refname) %(objectname)"), "\n") {
		if strings.HasPrefix(line, "refs/heads/autarch/") || strings.HasPrefix(line, "refs/heads/autarch-pulse/") ||
			strings.HasPrefix(line, git.NotesRef+" ") { // Autarch's own: the checkpoints' receipts
			continue
		}
		refs = append(refs, line)
	}
	packed, err := os.ReadFile(filepath.Join(dir, ".git", "packed-refs"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var ownPacked []string
	for _, line := range strings.Split(string(packed), "\n") {
		if !strings.Contains(line, " refs/heads/autarch/") && !strings.Contains(line, " refs/heads/autarch-pulse/") {
			ownPacked = append(ownPacked, line)
		}
	}
	return map[string]string{
		"refs":          strings.Join(refs, "\n"),
		"packed-refs":   strings.Join(ownPacked, "\n"),
		"HEAD/index/wt": testkit.UserTreeHash(t, dir),
		"main's log":    testkit.Git(t, dir, "log", "--format=%H %s", "main"),
	}
}
