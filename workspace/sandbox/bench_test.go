package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var benchCommands = []string{"true", "go version", "ls"}

func benchSandboxes(tb testing.TB) []Sandbox {
	tb.Helper()
	b, err := NewBwrap(context.Background(), Options{})
	if err != nil {
		tb.Fatalf("NewBwrap: %v (install bubblewrap: apt-get install bubblewrap)", err)
	}
	return []Sandbox{b, Unconfined{}}
}

func benchSpec(dir, command string, caches []string) Spec {
	return Spec{Dir: dir, Command: command, Caches: caches, Timeout: time.Minute}
}

// benchWorktree makes a repository with a linked worktree where Autarch
// puts a workflow's (<common>/autarch/worktrees/w) and returns the spec
// of a command in it, confined as tools confine a session's commands,
// and the spec the former paths gave it (the common dir's objects, refs
// and logs and the worktree's gitdir writable, nothing masked), to
// compare.
func benchWorktree(tb testing.TB, command string, caches []string) (now, former Spec) {
	tb.Helper()
	repo := tb.TempDir()
	common := filepath.Join(repo, ".git")
	wt := filepath.Join(common, "autarch", "worktrees", "w")
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "init"}, {"worktree", "add", "-q", "-b", "w", wt}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	now = benchSpec(wt, command, caches)
	c, err := RepoPaths(wt, common)
	if err != nil {
		tb.Fatal(err)
	}
	now.ReadOnly, now.Masked = c.ReadOnly, c.Masked
	former = benchSpec(wt, command, caches)
	gd := filepath.Join(common, "worktrees", "w")
	former.Writable = []string{gd, filepath.Join(common, "objects"), filepath.Join(common, "refs"), filepath.Join(common, "logs")}
	former.ReadOnly = []string{filepath.Join(wt, ".autarch"), filepath.Join(wt, ".git"), common,
		filepath.Join(gd, "commondir"), filepath.Join(gd, "gitdir"), filepath.Join(gd, "config.worktree")}
	return now, former
}

// BenchmarkSandbox measures a command's cost sandboxed and unconfined.
func BenchmarkSandbox(b *testing.B) {
	dir := b.TempDir()
	sbs := benchSandboxes(b)
	caches := sbs[0].(*Bwrap).DefaultCaches()
	for _, command := range benchCommands {
		for _, sb := range sbs {
			name := "bwrap"
			if !sb.Confined() {
				name = "unconfined"
			}
			b.Run(strings.ReplaceAll(command, " ", "_")+"/"+name, func(b *testing.B) {
				for b.Loop() {
					res, err := sb.Run(context.Background(), benchSpec(dir, command, caches))
					if err != nil || res.ExitCode != 0 {
						b.Fatalf("%q: %v %+v", command, err, res)
					}
				}
			})
		}
	}
}

// TestOverheadTable prints the median wall time of each command, sandboxed
// and unconfined, when AUTARCH_SANDBOX_BENCH is set (it takes seconds).
func TestOverheadTable(t *testing.T) {
	if os.Getenv("AUTARCH_SANDBOX_BENCH") == "" {
		t.Skip("set AUTARCH_SANDBOX_BENCH=1 to measure the sandbox's overhead")
	}
	const runs = 41
	dir := t.TempDir()
	sbs := benchSandboxes(t)
	caches := sbs[0].(*Bwrap).DefaultCaches()
	type config struct {
		sb   Sandbox
		spec Spec
	}
	var out strings.Builder
	fmt.Fprintf(&out, "| command | unconfined | bubblewrap, plain folder | bubblewrap, linked worktree, former paths | bubblewrap, linked worktree, now |\n|---|---|---|---|---|\n")
	for _, command := range benchCommands {
		now, former := benchWorktree(t, command, caches)
		configs := []config{{sbs[1], benchSpec(dir, command, caches)}, {sbs[0], benchSpec(dir, command, caches)}, {sbs[0], former}, {sbs[0], now}}
		ds := make([][]time.Duration, len(configs))
		for range runs { // interleaved, so that the machine's load weighs on each alike
			for i, c := range configs {
				start := time.Now()
				res, err := c.sb.Run(context.Background(), c.spec)
				if err != nil || res.ExitCode != 0 {
					t.Fatalf("%s %q: %v %+v", c.sb.Name(), command, err, res)
				}
				ds[i] = append(ds[i], time.Since(start))
			}
		}
		fmt.Fprintf(&out, "| `%s` |", command)
		for _, d := range ds {
			slices.Sort(d)
			fmt.Fprintf(&out, " %v |", d[len(d)/2].Round(10*time.Microsecond))
		}
		out.WriteString("\n")
	}
	t.Logf("median of %d runs (%s):\n%s", runs, sbs[0].Name(), out.String())
}
