package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/workspace/git"
)

// TestTrackedPassesSurviveAttacks (issue 35): the passes over a
// workflow's tracked files stat only what the tree watch names since the
// last pass, and every trick a command has to change a tracked file
// without the watch naming it still reaches the gates' changed paths and
// the checkpoint: a hard link made, written through and unlinked (in the
// tree, in an ignored folder, kept from one pass to the next), a shared
// mapping written after its file was closed, a file renamed over a
// tracked one, a same-size rewrite with its mtime put back, a link
// written by a background process in a folder made by the same command,
// and more events than the kernel queues (16,384 by default: 12,000
// rewrites make 36,000). After each step the gates'
// changed paths are those git's pass over the whole tree finds, and the
// checkpoint holds exactly what `git add -A` of the tree holds. Benign
// edits are passed over narrowed (the test fails if nothing is).
func TestTrackedPassesSurviveAttacks(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3, which writes through a shared mapping (apt-get install python3)")
	}
	ctx := context.Background()
	steps := []struct {
		name     string
		commands []string // each run before a gates pass, then before a checkpoint
		want     []string // among the gates' changed paths
	}{
		{"a hard link in another folder written through and unlinked",
			[]string{"ln pkg/a.go docs/link && echo linked >> docs/link && rm docs/link"}, []string{"pkg/a.go"}},
		{"a hard link in an ignored folder, kept, written through again, unlinked",
			[]string{"ln -f pkg/b.go build/b.link && echo kept >> build/b.link", "echo again >> build/b.link", "echo last >> build/b.link && rm build/b.link"}, []string{"pkg/b.go"}},
		{"a shared mapping written after its file was closed, through a link",
			[]string{`ln main.go docs/map && python3 -c "
import mmap
f = open('docs/map', 'r+b'); m = mmap.mmap(f.fileno(), 0); f.close()
m[0:1] = bytes([m[0] ^ 32]); m.flush(); m.close()" && rm docs/map`}, []string{"main.go"}},
		{"a shared mapping written after its file was closed",
			[]string{`python3 -c "
import mmap
f = open('pkg/a.go', 'r+b'); m = mmap.mmap(f.fileno(), 0); f.close()
m[0:1] = bytes([m[0] ^ 32]); m.flush(); m.close()"`}, []string{"pkg/a.go"}},
		{"a file renamed over a tracked one", []string{"echo replaced$RANDOM > docs/new && mv docs/new docs/readme.md"}, []string{"docs/readme.md"}},
		{"a same-size rewrite with its mtime put back, through a link",
			[]string{`t=$(stat -c %y pkg/b.go) && ln pkg/b.go docs/same && tr kK Kk < docs/same > /tmp/same && cat /tmp/same > docs/same && touch -d "$t" docs/same && rm docs/same`},
			[]string{"pkg/b.go"}},
		{"a link written by a background process in a folder the command made",
			[]string{"mkdir -p fresh && ln main.go fresh/l && { echo background >> fresh/l & wait; } && rm fresh/l"}, []string{"main.go"}},
		{"more events than the kernel queues, and a link",
			[]string{`python3 -c "
for i in range(12000): open('flood.txt', 'w').write(str(i))" && rm flood.txt && ln pkg/a.go docs/flood && echo flood >> docs/flood && rm docs/flood`},
			[]string{"pkg/a.go"}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			repo, wf, run, checkpoint := trackedAttackTree(t)
			for _, command := range st.commands {
				run(command) // before a gates pass
				changedAsWalked(t, ctx, repo, wf, st.name+": "+command+", before the gates", st.want...)
				run(command) // during the gates' commands: after their pass, before the checkpoint
				checkpoint(st.name + ": " + command + ", during the gates")
			}
		})
	}
}

// trackedAttackTree is a workflow in its second pulse, whose first ended
// with a plain edit passed over narrowed, with its session's command
// runner and a check of the next checkpoint (which starts the next pulse).
func trackedAttackTree(t *testing.T) (*git.Repo, *git.Workflow, func(string), func(string)) {
	t.Helper()
	ctx := context.Background()
	files := map[string]string{
		"main.go": "package main\n", "pkg/a.go": "package pkg\n", "pkg/b.go": "package pkg // b\n",
		"docs/readme.md": "read me\n", ".gitignore": "build/\n", "build/.keep": "",
	}
	repo, wf := workflowRepo(t, "trackedattack", files)
	wt := wf.Worktree
	if err := os.MkdirAll(filepath.Join(wt, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := followedTree(t, repo, wf)
	pulse := 0
	start := func() {
		t.Helper()
		pulse++
		if _, err := wf.StartPulse(ctx, fmt.Sprintf("p%d", pulse)); err != nil {
			t.Fatal(err)
		}
	}
	// checkpoint completes the pulse and checks its tree against git add
	// -A of the tree (into a copy of the index), then starts the next.
	checkpoint := func(step string) {
		t.Helper()
		index := strings.TrimSpace(gitCmd(t, wt, "rev-parse", "--path-format=absolute", "--git-path", "index"))
		data, err := os.ReadFile(index)
		if err != nil {
			t.Fatal(err)
		}
		scratch := filepath.Join(t.TempDir(), "index")
		if err := os.WriteFile(scratch, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want := func() string {
			for _, args := range [][]string{{"add", "-A"}, {"write-tree"}} {
				cmd := exec.Command("git", args...)
				cmd.Dir, cmd.Env = wt, append(os.Environ(), "GIT_INDEX_FILE="+scratch)
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("git %v: %v", args, err)
				}
				if args[0] == "write-tree" {
					return strings.TrimSpace(string(out))
				}
			}
			return ""
		}()
		cp, err := wf.CompletePulse(ctx, fmt.Sprintf("p%d", pulse), fmt.Sprintf("chore: checkpoint %d", pulse))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(gitCmd(t, wt, "rev-parse", cp.Commit+"^{tree}")); got != want {
			t.Errorf("%s: the checkpoint holds tree %s, git add -A of the tree %s:\n%s", step, got, want, gitCmd(t, wt, "diff", "--stat", got, want))
		}
		start()
	}
	start()
	changedAsWalked(t, ctx, repo, wf, "start")
	_, narrowedBefore := wf.TrackedScans()
	run("echo more >> main.go")
	changedAsWalked(t, ctx, repo, wf, "a plain edit", "main.go")
	checkpoint("a plain edit")
	if _, n := wf.TrackedScans(); n == narrowedBefore {
		t.Fatalf("no pass over the tracked files was narrowed to what the watch named")
	}

	return repo, wf, run, checkpoint
}

// followedTree is a sandboxed session's command runner in the workflow's
// worktree, whose mask state's tree watch the workflow follows from a
// first command and status on.
func followedTree(t *testing.T, repo *git.Repo, wf *git.Workflow) (run func(command string)) {
	t.Helper()
	ctx := context.Background()
	masks := NewMaskState()
	t.Cleanup(masks.Close)
	s, err := NewSession(SessionConfig{Root: wf.Worktree, GitCommonDir: repo.CommonDir(), Role: "pulsing", Mode: ModeYolo, Masks: masks})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	run = func(command string) {
		t.Helper()
		if r, err := s.runCommand(ctx, command, 0); err != nil || r.code != 0 {
			t.Fatalf("%s: %v %+v", command, err, r)
		}
	}
	run("true")
	wf.FollowChanges(masks)
	if _, err := wf.Status(ctx); err != nil {
		t.Fatal(err)
	}
	return run
}
