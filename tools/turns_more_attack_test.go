package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestTurnFreedByCancellation (redteam s10): a command that never yields
// its tree's turn (sleep, a server, a sub-agent's endless loop) is ended
// by its cancellation, and the other session's command then runs at once;
// while the turn is held, that other command can give up (its context)
// and says why.
func TestTurnFreedByCancellation(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	top := t.TempDir()
	if err := os.WriteFile(filepath.Join(top, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	masks := NewMaskState()
	t.Cleanup(masks.Close)
	session := func() *Session {
		s, err := NewSession(SessionConfig{Root: top, Role: "pulsing", Mode: ModeYolo, Masks: masks})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	holder, other := session(), session()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held := make(chan error, 1)
	go func() {
		_, err := holder.runCommand(ctx, "touch started; while :; do sleep 1; done", 10*time.Minute)
		held <- err
	}()
	if err := testkit.Poll(time.Minute, 20*time.Millisecond, func() error {
		_, err := os.Stat(filepath.Join(top, "started"))
		return err
	}); err != nil {
		t.Fatalf("the endless command did not start: %v", err)
	}
	// The other session gives up waiting when its context ends, saying why.
	wctx, wcancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	start := time.Now()
	waited := make(chan error, 1)
	go func() {
		_, err := other.runCommand(wctx, "echo ran", time.Minute)
		waited <- err
	}()
	var err error
	select {
	case err = <-waited:
	case <-time.After(30 * time.Second):
		cancel() // let the test end
		t.Fatal("a command waiting for a held turn ignored its context for 30 s")
	}
	wcancel()
	if err == nil || !strings.Contains(err.Error(), "waiting for another command in this tree to end") || time.Since(start) > 5*time.Second {
		t.Errorf("waiting for a held turn: %v after %s", err, time.Since(start))
	}
	// Cancelled, the endless command ends and frees the turn.
	cancel()
	select {
	case <-held:
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled command still holds the turn after 30 s")
	}
	start = time.Now()
	r, err := other.runCommand(context.Background(), "echo ran", time.Minute)
	if err != nil || strings.TrimSpace(r.stdout) != "ran" || time.Since(start) > 20*time.Second {
		t.Errorf("after the cancellation: %+v %v after %s", r, err, time.Since(start))
	}
}
