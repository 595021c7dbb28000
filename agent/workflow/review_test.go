package workflow_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestCompleteReviewCardGone: complete_review on a card deleted meanwhile
// answers the model {"success": false, "error": "Review card not found"}
// (spec autarch-tools.md, 000-72) and the review goes on; it is not a Go
// error ending the review.
func TestCompleteReviewCardGone(t *testing.T) {
	h := loadHarness(t, "testdata/other/review-card-gone.txt", scenarioConfig{MaxIterations: 2})
	must(t, os.WriteFile(filepath.Join(h.dir, "calc.go"), []byte("package calc\n\nfunc Two() int { return 2 }\n"), 0o644))
	testkit.Git(t, h.dir, "-c", "user.name=User", "-c", "user.email=user@example.com", "commit", "-q", "-am", "Two")
	db, err := sql.Open("sqlite", store.Path(h.repo.StateDir()))
	must(t, err)
	defer db.Close()
	h.mu.Lock()
	h.onEvent = func(ev workflow.Event) {
		if ev.Kind == "tool_call" && ev.Tool == "complete_review" {
			if _, err := db.Exec(`DELETE FROM review_cards`); err != nil {
				t.Errorf("delete the review card: %v", err)
			}
		}
	}
	h.mu.Unlock()
	_, err = h.engine.Review(context.Background(), workflow.ReviewRequest{Base: "HEAD~1"})
	// Without a card the review cannot end: the agent goes on until its
	// iteration limit.
	if err == nil || !strings.Contains(err.Error(), "iteration limit reached") {
		t.Errorf("review ended with %v; want the agent's iteration limit, not the store's error", err)
	}
	testkit.CheckModel(t, h.model)
}
