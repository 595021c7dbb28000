package tools

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace/git"
)

// TestPulseStatAttacks (redteam s10, black box): what a workflow decides
// from stat data — the gates' changed paths, the pulse's checkpoint and
// the next command's masks — is never fooled by how an agent's commands
// change the tree. Each attack changes the content of a tracked file
// without the change showing in the ways a narrowed pass might trust:
//
//   - through a hard link in another folder, removed afterwards (the
//     tree watch only ever hears the link's name), in the same command or
//     after an earlier command made the link;
//   - through a shared memory mapping, after the file was closed;
//   - by renaming a file over it;
//   - with its size and modification time kept (touch -r);
//   - from a process started inside a folder made during the command;
//   - after an inotify queue overflow;
//   - with more folders in the tree than one watch may take.
//
// Each time, the changed paths must be the ones that differ between the
// branch and what `git add -A` would stage into an empty index (every
// file hashed, no stat data trusted), the checkpoint's tree must be that
// tree, and the secret written must be masked for the next command.
//
// Every attack lands in a later second than the one in which git last
// recorded the file's stat data: in the same second, git itself is fooled
// (/work/briefs/s10/redteam/02).
func TestPulseStatAttacks(t *testing.T) {
	for _, tc := range pulseStatAttacks() {
		t.Run(tc.name, func(t *testing.T) {
			if tc.slow && testing.Short() {
				t.Skip("slow (about 20 s); runs without -short, as make test runs")
			}
			pulseStatAttack(t, tc, false)
		})
	}
}

// The attacked file's clean and dirty content: the same length, so the
// file's size never changes.
const (
	statClean  = "token = xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
	statSecret = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	statDirty  = "token = " + statSecret + "\n"
)

// statAttack is one way to change src/app.cfg.
type statAttack struct {
	name     string
	commands []string // run in turn
	changed  []string // beside src/app.cfg, what the checkpoint adds
	slow     bool
}

func pulseStatAttacks() []statAttack {
	secret := statSecret
	write := "printf 'token = " + secret + "\\n'"
	mmap := `/usr/bin/python3 -c '
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, 0)
os.close(fd)
m[:] = sys.argv[2].encode() + b"\n"
m.flush()
m.close()
' `
	return []statAttack{
		{"hard link in another folder, removed in the same command", []string{
			"cp -p src/app.cfg /tmp/ref && mkdir -p other && ln src/app.cfg other/l && " + write + " > other/l && touch -r /tmp/ref other/l && rm -r other"}, nil, false},
		{"hard link made by an earlier command", []string{
			"mkdir -p other && ln src/app.cfg other/l",
			"cp -p src/app.cfg /tmp/ref && " + write + " > other/l && touch -r /tmp/ref other/l && rm other/l"}, nil, false},
		{"hard link in a folder made in the same command", []string{
			"cp -p src/app.cfg /tmp/ref && mkdir -p n/e/w && ln src/app.cfg n/e/w/l && " + write + " > n/e/w/l && touch -r /tmp/ref n/e/w/l && rm -r n"}, nil, false},
		{"shared mapping after the last close, through a removed hard link", []string{
			"cp -p src/app.cfg /tmp/ref && mkdir -p other && ln src/app.cfg other/l && " + mmap + " other/l 'token = " + secret + "' && touch -r /tmp/ref other/l && rm other/l"}, nil, false},
		{"shared mapping after the last close", []string{
			"cp -p src/app.cfg /tmp/ref && " + mmap + " src/app.cfg 'token = " + secret + "' && touch -r /tmp/ref src/app.cfg"}, nil, false},
		{"rename over the file", []string{
			write + " > src/new.tmp && touch -r src/app.cfg src/new.tmp && mv src/new.tmp src/app.cfg"}, nil, false},
		{"size and modification time kept", []string{
			"cp -p src/app.cfg /tmp/ref && " + write + " > src/app.cfg && touch -r /tmp/ref src/app.cfg"}, nil, false},
		{"a process started inside a folder made during the command", []string{
			"for i in $(seq 40); do mkdir -p made/$i/a/b && (cd made/$i/a/b && sh -c 'echo x > f && mkdir -p c && echo y > c/g'); done && cp -p src/app.cfg /tmp/ref && " + write + " > /tmp/dirty && (cd made/40/a/b/c && sh -c 'cp /tmp/dirty ../../../../../src/app.cfg') && touch -r /tmp/ref src/app.cfg"},
			madePaths(40), false},
		{"inotify queue overflow", []string{
			"for i in $(seq 9000); do echo $i > flood.txt; done; rm flood.txt; cp -p src/app.cfg /tmp/ref && " + write + " > src/app.cfg && touch -r /tmp/ref src/app.cfg"}, nil, true},
		{"more folders than one watch may take", []string{
			"mkdir empty && cd empty && seq 26000 | xargs mkdir",
			"cp -p src/app.cfg /tmp/ref && " + write + " > src/app.cfg && touch -r /tmp/ref src/app.cfg"}, nil, true},
	}
}

// pulseSession is a pulsing session in the workflow worktree wt of repo
// and the mask state it has to itself.
func pulseSession(t *testing.T, repo *git.Repo, wt string) (*Session, *MaskState) {
	t.Helper()
	masks := NewMaskState()
	t.Cleanup(masks.Close)
	s, err := NewSession(SessionConfig{Root: wt, GitCommonDir: repo.CommonDir(), Role: "pulsing", Mode: ModeYolo, Masks: masks})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, masks
}

// pulseStatAttack runs one attack in a pulse and checks the gates' changed
// paths, the next command's masks and the checkpoint. sameSecond: the
// attack may land in the second in which git last recorded the file's
// stat data (else it waits for the next one).
func pulseStatAttack(t *testing.T, tc statAttack, sameSecond bool) {
	ctx := context.Background()
	repo, wf := workflowRepo(t, "statattack", map[string]string{
		"main.go": "package main\n", "src/app.cfg": statClean, "src/lib.go": "package src\n", ".gitignore": "/ignored/\n"})
	wt := wf.Worktree
	s, masks := pulseSession(t, repo, wt)
	run := func(command string) string {
		t.Helper()
		r, err := s.runCommand(ctx, command, 0)
		if err != nil || r.code != 0 {
			t.Fatalf("%s: %v %+v", command, err, r)
		}
		return r.stdout
	}
	// Its recorded stat data is older than the index from now on,
	// so git does not take it for racily clean and trusts it.
	run("touch -d @1577836800 src/app.cfg")
	wf.FollowChanges(masks)
	if _, err := wf.Status(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := wf.StartPulse(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	if _, err := wf.ChangedPaths(ctx); err != nil { // a listing to narrow from
		t.Fatal(err)
	}
	if !sameSecond {
		var st unix.Stat_t
		if err := unix.Stat(filepath.Join(wt, "src", "app.cfg"), &st); err != nil {
			t.Fatal(err)
		}
		if err := testkit.Poll(3*time.Second, 5*time.Millisecond, func() error {
			if sec, _ := st.Ctim.Unix(); time.Now().Unix() <= sec {
				return errors.New("the second in which git recorded the file has not ended")
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range tc.commands {
		run(c)
	}
	if got, err := os.ReadFile(filepath.Join(wt, "src", "app.cfg")); err != nil || string(got) != statDirty {
		t.Fatalf("the attack did not write the file: %q %v", got, err)
	}
	// The next command's masks.
	if out := run("rev src/app.cfg || true"); strings.Contains(out, statReversed(statSecret)) {
		t.Errorf("the next command read the secret: %s", out)
	}
	tree := stagedFresh(t, wt)
	want := strings.Fields(gitCmd(t, wt, "diff", "--name-only", "--no-renames", wf.Branch, tree))
	if !slices.Contains(want, "src/app.cfg") {
		t.Fatalf("the oracle misses the change: %q", want)
	}
	for _, p := range tc.changed {
		if !slices.Contains(want, p) {
			t.Fatalf("the oracle misses %s: %q", p, want)
		}
	}
	got, err := wf.ChangedPaths(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Sort(got); !slices.Equal(got, want) {
		t.Errorf("the gates' changed paths are %q, git add -A would change %q", got, want)
	}
	cp, err := wf.CompletePulse(ctx, "p1", "feat: attack")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(gitCmd(t, wt, "rev-parse", cp.Commit+"^{tree}")); got != tree {
		t.Errorf("the checkpoint's tree differs from what git add -A stages:\n%s", gitCmd(t, wt, "diff", "--stat", tree, got))
	}
}

// madePaths are the files the "folder made during the command" attack
// leaves.
func madePaths(n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		d := "made/" + strconv.Itoa(i) + "/a/b/"
		out = append(out, d+"c/g", d+"f")
	}
	return out
}

// statReversed is s backwards (a command's `rev` of a secret).
func statReversed(s string) string {
	b := []byte(s)
	slices.Reverse(b)
	return string(b)
}

// stagedFresh is the tree `git add -A` stages for the work tree at wt into
// an empty index: every file is hashed, no stat data is trusted.
func stagedFresh(t *testing.T, wt string) string {
	t.Helper()
	index := filepath.Join(t.TempDir(), "index")
	for _, args := range [][]string{{"add", "-A"}, {"write-tree"}} {
		cmd := exec.Command("git", append([]string{"-C", wt}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+index)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		if args[0] == "write-tree" {
			return strings.TrimSpace(string(out))
		}
	}
	return ""
}
