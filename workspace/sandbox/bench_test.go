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
// of a command in it, confined as tools confine a session's commands.
func benchWorktree(tb testing.TB, command string, caches []string) Spec {
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
	spec := benchSpec(wt, command, caches)
	c, err := RepoPaths(wt, common)
	if err != nil {
		tb.Fatal(err)
	}
	spec.ReadOnly, spec.Masked = c.ReadOnly, c.Masked
	return spec
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
	median := func(sb Sandbox, command string, worktree bool) time.Duration {
		spec := benchSpec(dir, command, caches)
		if worktree {
			spec = benchWorktree(t, command, caches)
		}
		var ds []time.Duration
		for range runs {
			start := time.Now()
			res, err := sb.Run(context.Background(), spec)
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("%s %q: %v %+v", sb.Name(), command, err, res)
			}
			ds = append(ds, time.Since(start))
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	var out strings.Builder
	fmt.Fprintf(&out, "| command | bubblewrap | bubblewrap, linked worktree | unconfined | overhead | overhead, linked worktree |\n|---|---|---|---|---|---|\n")
	r := func(d time.Duration) time.Duration { return d.Round(10 * time.Microsecond) }
	for _, command := range benchCommands {
		bw, wt, un := median(sbs[0], command, false), median(sbs[0], command, true), median(sbs[1], command, false)
		fmt.Fprintf(&out, "| `%s` | %v | %v | %v | %v | %v |\n", command, r(bw), r(wt), r(un), r(bw-un), r(wt-un))
	}
	t.Logf("median of %d runs (%s):\n%s", runs, sbs[0].Name(), out.String())
}
