package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// gcPercent reads the current GOGC.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// TestShortProcessGC: a tool process collects at GOGC 400 while its live
// heap is small and goes back to the default once it holds more than
// shortGCMaxLive; a GOGC the user set is left alone. It runs in a process
// of its own, as a tool process does: this package's other tests may keep
// more than shortGCMaxLive live in theirs (seen once in CI under -race).
func TestShortProcessGC(t *testing.T) {
	if os.Getenv("AUTARCH_TEST_GC_CHILD") == "" {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestShortProcessGC$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "AUTARCH_TEST_GC_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestShortProcessGC") {
			t.Fatalf("the test in a process of its own: %v\n%s", err, out)
		}
		return
	}
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC") // restored by Setenv's cleanup
	before := gcPercent()
	undo := shortProcessGC()
	defer undo()
	if got := gcPercent(); got != shortGCPercent {
		t.Fatalf("GOGC %d in a tool process, want %d", got, shortGCPercent)
	}
	runtime.GC()
	runtime.GC()
	if got := gcPercent(); got != shortGCPercent {
		t.Fatalf("GOGC %d after collections of a small heap, want %d still", got, shortGCPercent)
	}
	big := make([]byte, shortGCMaxLive+(16<<20))
	for i := range big {
		big[i] = byte(i)
	}
	err := testkit.Poll(10*time.Second, time.Millisecond, func() error {
		runtime.GC() // each collection runs the watch's finalizer
		if got := gcPercent(); got != before {
			return fmt.Errorf("GOGC %d with %d MiB live, want the default %d back", got, len(big)>>20, before)
		}
		return nil
	})
	runtime.KeepAlive(big)
	if err != nil {
		t.Error(err)
	}

	t.Setenv("GOGC", "150")
	debug.SetGCPercent(150)
	defer debug.SetGCPercent(before)
	shortProcessGC()()
	if got := gcPercent(); got != 150 {
		t.Errorf("GOGC %d with GOGC=150 set by the user, want it kept", got)
	}
}
