package orchestrate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/swarm"
)

// TestApplyRefusesHostilePaths: an approved proposal is still written only
// inside the worktree, never in .git or .autarch, never to a protected
// path or one the secret gate blocks, never through a symlink out of the
// worktree or to any of those, never over the size limit.
func TestApplyRefusesHostilePaths(t *testing.T) {
	dir := t.TempDir()
	wt, outside := filepath.Join(dir, "wt"), filepath.Join(dir, "outside")
	for _, d := range []string{filepath.Join(wt, ".git"), filepath.Join(wt, "secrets"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(wt, "secrets", "token.txt"), []byte("t0ken\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"link": outside, "token-link": "secrets/token.txt", "env-link": ".env", "gitdir": ".git"} {
		if err := os.Symlink(target, filepath.Join(wt, link)); err != nil {
			t.Fatal(err)
		}
	}
	sess, err := worktreeSession(wt, []string{"secrets/**"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for _, tc := range []struct{ path, content, want string }{
		{"../outside/x", "pwned", "escapes"},
		{filepath.Join(outside, "x"), "pwned", "not under"},
		{"a/../../outside/x", "pwned", "escapes"},
		{".git/config", "pwned", "inside .git"},
		{".GIT/hooks/pre-commit", "pwned", "inside .git"},
		{"sub/.git/config", "pwned", "is protected (**/.git/**)"},
		{".autarch/config.yaml", "pwned", "is protected (.autarch/**)"},
		{".mcp.json", "pwned", "is protected (.mcp.json)"},
		{".", "pwned", "the worktree itself"},
		{"link/x", "pwned", ""},
		{"secrets/token.txt", "pwned", "secrets/token.txt is protected (secrets/**)"},
		{"secrets/new.txt", "pwned", "is protected (secrets/**)"},
		{"token-link", "pwned", "token-link leads to secrets/token.txt, which is protected (secrets/**)"},
		{"gitdir/config", "pwned", "leads to .git/config, which is protected"},
		{".env", "pwned", ".env"},
		{"config/.env.production", "pwned", ".env"},
		{"deploy/id_rsa", "pwned", "id_rsa"},
		{"env-link", "pwned", ".env"},
		{"big.txt", strings.Repeat("x", swarm.MaxProposal+1), "over the 921600 a proposal may hold"},
	} {
		_, err := applyProposal(sess, nil, editor.SwarmProposal{Path: tc.path, Content: tc.content}, true)
		if err == nil || tc.want != "" && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want a refusal mentioning %q", tc.path, err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside the worktree: %v", entries)
	}
	for _, f := range []string{".env", "big.txt", "secrets/new.txt", ".mcp.json", "config", "deploy"} {
		if _, err := os.Lstat(filepath.Join(wt, f)); !os.IsNotExist(err) {
			t.Errorf("%s exists after its refusal: %v", f, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(wt, "secrets", "token.txt")); string(b) != "t0ken\n" {
		t.Errorf("secrets/token.txt = %q", b)
	}
	if _, err := applyProposal(sess, nil, editor.SwarmProposal{Path: "new/dir/f.txt", Content: "x"}, false); err == nil || !strings.Contains(err.Error(), "create_dirs is false") {
		t.Errorf("create_dirs false: %v", err)
	}
	if rel, err := applyProposal(sess, nil, editor.SwarmProposal{Path: "./new/dir/f.txt", Content: "x"}, true); err != nil || rel != "new/dir/f.txt" {
		t.Errorf("a plain write: %q, %v", rel, err)
	}
	if b, _ := os.ReadFile(filepath.Join(wt, "new", "dir", "f.txt")); string(b) != "x" {
		t.Errorf("new/dir/f.txt = %q", b)
	}
}

// TestWorktreesUnderTheRefLock: swarms set up their worktrees while a
// workflow's parallel pulses make and drop theirs, all at once: every set-up
// succeeds and every swarm worktree is on its own branch. Without the
// repository's ref lock, a `git worktree prune` or `worktree add` reads
// another's half-made admin directory ("failed to read …/commondir").
func TestWorktreesUnderTheRefLock(t *testing.T) {
	w := newWorld(t, "")
	ctx := context.Background()
	wf, err := w.repo.CreateWorkflow(ctx, "wf", "main")
	if err != nil {
		t.Fatal(err)
	}
	base, err := w.repo.ResolveCommit(ctx, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	var states []*State
	for round := range 4 {
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			errs []error
		)
		fail := func(err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() }
		for i := range 6 {
			id := fmt.Sprintf("%06x%06x", round, i)
			st := &State{ID: id, Branch: BranchPrefix + id, Base: base, Worktree: w.repo.WorktreePath("swarm-" + id)}
			states = append(states, st)
			wg.Add(2)
			go func() {
				defer wg.Done()
				if err := ensureWorktree(ctx, w.repo, st); err != nil {
					fail(err)
				}
			}()
			go func() {
				defer wg.Done()
				pt, err := wf.OpenPulseTree(ctx, fmt.Sprintf("p%d-%d", round, i))
				if err == nil {
					err = pt.Discard(ctx)
				}
				if err != nil {
					fail(err)
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			t.Errorf("round %d: %v", round, err)
		}
	}
	for _, st := range states {
		if got := gitRun(t, st.Worktree, "symbolic-ref", "HEAD"); got != "refs/heads/"+st.Branch {
			t.Errorf("%s is on %s, want %s", st.Worktree, got, st.Branch)
		}
	}
}

// TestArbiterDiffShowsNoSecret: the diff a proposal shows the arbiter's
// model reads the worktree's file through the gate. A file whose path is
// innocent but whose content holds a secret (a key pasted into
// config.go) is not shown: the diff holds the proposal alone.
func TestArbiterDiffShowsNoSecret(t *testing.T) {
	wt := t.TempDir()
	key := "AKIA" + "QYLPMN5HHHFPZAM2"
	if err := os.WriteFile(filepath.Join(wt, "config.go"), []byte("package config\n\nconst awsKey = \""+key+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wt, "plain.go"), []byte("package config\n\nconst n = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sess, err := worktreeSession(wt, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	d := diffOf(sess, Proposal{Path: "config.go", Content: "package config\n\nconst region = \"eu\"\n"})
	if strings.Contains(d, key) || strings.Contains(d, "QYLPMN5HHHFPZAM2") {
		t.Fatalf("the arbiter's diff shows the file's secret:\n%s", d)
	}
	if !strings.Contains(d, "not shown") || !strings.Contains(d, `+const region = "eu"`) {
		t.Errorf("the diff should say the content is not shown and hold the proposal:\n%s", d)
	}
	// A file without a secret is diffed as before.
	d = diffOf(sess, Proposal{Path: "plain.go", Content: "package config\n\nconst n = 2\n"})
	if !strings.Contains(d, "-const n = 1") || !strings.Contains(d, "+const n = 2") {
		t.Errorf("plain diff:\n%s", d)
	}
}
