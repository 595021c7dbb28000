package testkit

import (
	"fmt"
	"os/exec"
	"testing"
	"time"
)

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
