package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/workspace"
)

// loggingGit is a git executable that appends each command line to log and
// runs the real git.
func loggingGit(t *testing.T) (bin, log string) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log = filepath.Join(dir, "log")
	bin = filepath.Join(dir, "git")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, log
}

// TestCheckpointWalksTheTreeOnce (issue 35): completing a pulse lists the
// worktree's untracked files once and stats its tracked files once — no
// git add --all after the listing (a second walk), no reset --hard after
// the commit (a second stat pass and an index write) — and still commits
// every kind of change and leaves the worktree at rest. Where the agent
// made a nested repository the reset still runs, putting back what the
// exclusion left out.
func TestCheckpointWalksTheTreeOnce(t *testing.T) {
	cases := []struct {
		name string
		work func(t *testing.T, wt string)
		// files are the paths the checkpoint's tree must hold and gone
		// those it must not.
		files, gone []string
		reset       bool
	}{
		{
			name: "edits, deletions, new files and directories",
			work: func(t *testing.T, wt string) {
				writeFile(t, filepath.Join(wt, "lib", "lib.go"), "package lib\n\nconst Three = 3\n")
				if err := os.Remove(filepath.Join(wt, "old.txt")); err != nil {
					t.Fatal(err)
				}
				writeFile(t, filepath.Join(wt, "new.go"), "package main\n")
				writeFile(t, filepath.Join(wt, "pkg", "deep", "x.go"), "package deep\n")
				writeFile(t, filepath.Join(wt, "name with spaces.txt"), "spaces\n")
				writeFile(t, filepath.Join(wt, "trace.log"), "ignored\n")
			},
			files: []string{"lib/lib.go", "new.go", "pkg/deep/x.go", "name with spaces.txt", "main.go"},
			gone:  []string{"old.txt", "trace.log"},
		},
		{
			name: "a file becomes a directory",
			work: func(t *testing.T, wt string) {
				if err := os.Remove(filepath.Join(wt, "old.txt")); err != nil {
					t.Fatal(err)
				}
				writeFile(t, filepath.Join(wt, "old.txt", "inside.txt"), "now a directory\n")
			},
			files: []string{"old.txt/inside.txt"},
		},
		{
			name: "a nested repository is left out",
			work: func(t *testing.T, wt string) {
				gitT(t, wt, "init", "-q", "vendored")
				writeFile(t, filepath.Join(wt, "vendored", "v.go"), "package vendored\n")
				writeFile(t, filepath.Join(wt, "kept.go"), "package main\n")
			},
			files: []string{"kept.go"},
			gone:  []string{"vendored", "vendored/v.go"},
			reset: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir, _ := userRepo(t)
			r, log := loggedRepo(t, dir)
			wf := pulseStarted(t, r, "walk")
			tc.work(t, wf.Worktree)
			if err := os.Truncate(log, 0); err != nil {
				t.Fatal(err)
			}
			cp, err := wf.CompletePulse(ctx, "p1", "feat: pulse one")
			if err != nil {
				t.Fatal(err)
			}
			// The subcommands, without the hardened runner's options.
			var sub []string
			for _, line := range strings.Split(strings.TrimSpace(readFile(t, log)), "\n") {
				f := strings.Fields(line)
				for i := len(f) - 1; i > 0; i-- {
					if f[i-1] == "-c" {
						line = strings.Join(f[i+1:], " ")
						break
					}
				}
				sub = append(sub, " "+line)
			}
			cmds := strings.Join(sub, "\n")
			if n := strings.Count(cmds, " ls-files --others"); n != 1 {
				t.Errorf("the untracked files were listed %d times, want once:\n%s", n, cmds)
			}
			if strings.Contains(cmds, " add --all") {
				t.Errorf("git add --all walked the tree again after the listing:\n%s", cmds)
			}
			if got := strings.Contains(cmds, " reset --hard"); got != tc.reset {
				t.Errorf("reset --hard ran: %v, want %v:\n%s", got, tc.reset, cmds)
			}
			tree := gitT(t, dir, "ls-tree", "-r", "--name-only", cp.Commit)
			have := strings.Split(tree, "\n")
			for _, f := range tc.files {
				if !slices.Contains(have, f) {
					t.Errorf("the checkpoint lacks %s; it holds %v", f, have)
				}
			}
			for _, f := range tc.gone {
				if slices.Contains(have, f) {
					t.Errorf("the checkpoint holds %s", f)
				}
			}
			st, err := wf.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if changed := st.TrackedChanges(); len(changed) > 0 {
				t.Errorf("the worktree is not at rest after the checkpoint: %v", changed)
			}
			if head := gitT(t, wf.Worktree, "rev-parse", "HEAD"); head != cp.Commit {
				t.Errorf("the worktree's HEAD is %s, want the checkpoint %s", head, cp.Commit)
			}
		})
	}
}

// TestCheckpointCommitIsNotResolvedAgain (issue 30's pulse turnover): the
// receipt and the diff of a checkpoint name its commit by its full id;
// the Repo made that commit, so it verifies it with no git process, and
// an id it verified once is not verified again. A name that is not a
// full id, or an id of no commit, is still asked of git.
func TestCheckpointCommitIsNotResolvedAgain(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r, log := loggedRepo(t, dir)
	wf := pulseStarted(t, r, "known")
	writeFile(t, filepath.Join(wf.Worktree, "new.go"), "package main\n")
	cp, err := wf.CompletePulse(ctx, "p1", "feat: pulse one")
	if err != nil {
		t.Fatal(err)
	}
	resolves := func() int {
		return strings.Count(readFile(t, log), " rev-parse --verify --quiet --end-of-options ")
	}
	if err := os.Truncate(log, 0); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if got, err := r.ResolveCommit(ctx, cp.Commit); err != nil || got != cp.Commit {
			t.Fatalf("ResolveCommit(%s) = %q, %v", cp.Commit, got, err)
		}
	}
	if n := resolves(); n != 0 {
		t.Errorf("the checkpoint the Repo made was resolved by %d git processes, want none", n)
	}
	main := gitT(t, dir, "rev-parse", "main~1") // never resolved by the workflow
	for range 3 {
		if got, err := r.ResolveCommit(ctx, main); err != nil || got != main {
			t.Fatalf("ResolveCommit(%s) = %q, %v", main, got, err)
		}
	}
	if n := resolves(); n != 1 {
		t.Errorf("a commit id was resolved by %d git processes, want 1 (then known)", n)
	}
	if _, err := r.ResolveCommit(ctx, "main"); err != nil {
		t.Fatal(err)
	}
	if n := resolves(); n != 2 {
		t.Errorf("a branch name was not asked of git (%d processes)", n)
	}
	tree := gitT(t, dir, "rev-parse", "main^{tree}")
	if _, err := r.ResolveCommit(ctx, tree); err == nil {
		t.Errorf("ResolveCommit accepted the tree %s", tree)
	}
}

// TestSandboxObjectsPackFast (issue 35): the filtered object store's packs
// are written without a delta search and with light compression — the
// default pack-objects was most of a big repository's first command — and
// still hold every clean object.
func TestSandboxObjectsPackFast(t *testing.T) {
	_, dir := secretRepo(t)
	r, log := loggedRepo(t, dir)
	v := updateStore(t, r.SandboxObjects(workspace.DefaultGate(), "test", 4<<20))
	if !inView(t, dir, v, "HEAD:main.go") || inView(t, dir, v, "HEAD:.env") {
		t.Fatal("the store must hold main.go and not .env")
	}
	data := readFile(t, log)
	packs := 0
	for _, line := range strings.Split(data, "\n") {
		if strings.Contains(line, " pack-objects ") {
			packs++
			if !strings.Contains(line, " --window=0 ") || !strings.Contains(line, " --compression=1 ") {
				t.Errorf("pack-objects searches deltas or compresses hard: %s", line[strings.Index(line, " pack-objects "):])
			}
		}
	}
	if packs == 0 {
		t.Fatalf("no pack written:\n%s", data)
	}
}
