package tools

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestHarvestStartsWhenGrepsWalkEnds: the harvest that a grep's walk
// completes starts as the walk ends, beside the search's reading of the
// files, not when the grep's output is first filtered (which then waits
// only for what is left of it); it still walks nothing itself.
func TestHarvestStartsWhenGrepsWalkEnds(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".env":    "API_SECRET=walkValue7Hb2Kq9Xs\n",
		"main.go": "package main\n",
	})
	h := newHarness(t, "research", SessionConfig{Root: dir})
	// The tool itself, not through the engine: nothing filters its output.
	if _, err := runGrep(context.Background(), h.s, grepParams{Pattern: "package", Reason: "r"}); err != nil {
		t.Fatal(err)
	}
	if err := testkit.Poll(10*time.Second, time.Millisecond, func() error {
		if !h.s.egress.lazy.started.Load() {
			return errors.New("the harvest has not started after the grep's walk")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	h.s.egress.ready()
	if got := h.s.egress.lazy.walks.Load(); got != 0 {
		t.Errorf("the harvest walked the workspace %d times, want 0 (the grep's walk stands in)", got)
	}
	if h.s.egress.Values() == 0 {
		t.Error("the harvest masked no value of .env")
	}
}
