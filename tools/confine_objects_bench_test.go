package tools

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"
)

// TestMeasureCommandOverhead prints the median wall time of a sandboxed
// command (true, go version, ls) in a repository (AUTARCH_MEASURE_REPO, a
// clone to run in) before and after the filtered object store: the spec
// without the store's binds and masks, and with them (including the
// store's up-to-date check). Run with AUTARCH_MEASURE_REPO set.
func TestMeasureCommandOverhead(t *testing.T) {
	repo := os.Getenv("AUTARCH_MEASURE_REPO")
	if repo == "" {
		t.Skip("set AUTARCH_MEASURE_REPO to a repository clone to measure")
	}
	ctx := context.Background()
	s, err := NewSession(SessionConfig{Root: repo, Role: "pulsing"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sb, err := s.commandSandbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s.objectBinds(ctx)
	fmt.Printf("first objectBinds (store build or check): %v\n", time.Since(start))
	const runs = 31
	med := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	timed := func(f func()) time.Duration {
		st := time.Now()
		f()
		return time.Since(st)
	}
	fmt.Printf("| command | before (no object store) | after (filtered store) | store check alone |\n|---|---|---|---|\n")
	for _, c := range []string{"true", "go version", "ls"} {
		var before, after, check []time.Duration
		// Interleaved, so that the machine's load weighs on both alike.
		for range runs {
			before = append(before, timed(func() {
				spec, err := s.commandSpec(ctx, c, time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				spec.Binds, spec.Masked = nil, spec.Masked[:len(spec.Masked)-len(gitContentDirs)-1]
				if res, err := sb.Run(ctx, spec); err != nil || res.ExitCode != 0 {
					t.Fatalf("%s: %v %+v", c, err, res)
				}
			})-timed(func() { s.objectBinds(ctx) }))
			after = append(after, timed(func() {
				if run, err := s.runCommand(ctx, c, time.Minute); err != nil || run.code != 0 {
					t.Fatalf("%s: %v %s", c, err, run.stderr)
				}
			}))
			check = append(check, timed(func() { s.objectBinds(ctx) }))
		}
		fmt.Printf("| %s | %v | %v | %v |\n", c, med(before).Round(100*time.Microsecond), med(after).Round(100*time.Microsecond), med(check).Round(10*time.Microsecond))
	}
}
