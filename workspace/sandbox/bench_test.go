package sandbox

import (
	"context"
	"fmt"
	"os"
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
	median := func(sb Sandbox, command string) time.Duration {
		var ds []time.Duration
		for range runs {
			start := time.Now()
			res, err := sb.Run(context.Background(), benchSpec(dir, command, caches))
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("%s %q: %v %+v", sb.Name(), command, err, res)
			}
			ds = append(ds, time.Since(start))
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	var out strings.Builder
	fmt.Fprintf(&out, "| command | bubblewrap | unconfined | overhead |\n|---|---|---|---|\n")
	for _, command := range benchCommands {
		bw, un := median(sbs[0], command), median(sbs[1], command)
		fmt.Fprintf(&out, "| `%s` | %v | %v | %v |\n", command, bw.Round(10*time.Microsecond), un.Round(10*time.Microsecond), (bw - un).Round(10*time.Microsecond))
	}
	t.Logf("median of %d runs (%s):\n%s", runs, sbs[0].Name(), out.String())
}
