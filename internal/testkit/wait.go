package testkit

import (
	"fmt"
	"os/exec"
	"testing"
	"time"
)

// Patience is how long a test waits for what should happen soon (an
// answer, an event, a run's end) before it fails: generous, since CI runs
// every package's tests at once on 2 cores (loads of 15 to 36), where a
// second's work takes tens. A hang still fails, at this bound or at go
// test's -timeout; nothing is timed by it.
const Patience = 3 * time.Minute

// Poll calls f every interval until it returns nil, and returns nil then.
// When timeout passes first it returns f's last error, saying how long it
// waited. f runs at once, then after each interval.
func Poll(timeout, interval time.Duration, f func() error) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		err := f()
		if err == nil {
			return nil
		}
		select {
		case <-deadline.C:
			return fmt.Errorf("not within %s: %w", timeout, err)
		case <-tick.C:
		}
	}
}

// CheckFor polls f every interval until it returns nil; when timeout passes
// first it fails t with f's last error (nats-server's checkFor).
func CheckFor(t testing.TB, timeout, interval time.Duration, f func() error) {
	t.Helper()
	if err := Poll(timeout, interval, f); err != nil {
		t.Fatal(err)
	}
}

// CheckForChild is CheckFor while child runs: when timeout passes first,
// it kills and reaps child, then fails t with f's last error and what the
// child wrote (out, nil for nothing).
func CheckForChild(t testing.TB, child *exec.Cmd, out fmt.Stringer, timeout, interval time.Duration, f func() error) {
	t.Helper()
	if err := Poll(timeout, interval, f); err != nil {
		child.Process.Kill()
		child.Wait()
		var wrote string
		if out != nil {
			wrote = out.String()
		}
		t.Fatalf("%v\n%s", err, wrote)
	}
}
