package job

import (
	"context"
	"fmt"
	"slices"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/receipt"
	"github.com/autarch-dev/autarch/tools/team"
	"github.com/autarch-dev/autarch/tools/verify"
)

// writeReceipt writes the completion receipt of a job's commit (issue
// 32): the whole-project tests and linters commit_changes rested it on.
// The commit stays whatever happens here; a receipt that cannot be
// written is logged and announced.
func (h *handle) writeReceipt(ctx context.Context, c team.Commit) {
	ctx = context.WithoutCancel(ctx)
	err := func() error {
		_, parent, err := h.r.repo.TreeOf(ctx, c.Hash)
		if err != nil {
			return err
		}
		var changed []string
		if parent != "" {
			if changed, err = h.r.repo.ChangedPaths(ctx, h.job.WorktreePath, parent); err != nil {
				return err
			}
		}
		var kinds []verify.Kind
		for _, rep := range c.Checks {
			if !slices.Contains(kinds, rep.Kind) {
				kinds = append(kinds, rep.Kind)
			}
		}
		gates := verify.Gates{Kinds: kinds, Full: true} // run_tests and run_lint ran on the whole project
		_, err = receipt.Record(ctx, h.r.repo, receipt.Subject{Kind: receipt.Job, Commit: c.Hash,
			Run: receipt.Run{Kind: "job", ID: h.job.ID, Name: c.Branch}, Gates: gates},
			verify.GateRun{Reports: c.Checks, Changed: changed})
		return err
	}()
	if err != nil {
		h.r.log.Warn("write the job commit's receipt", "job", h.job.ID, "commit", c.Hash, "err", err)
		h.r.emit(editor.JobEvent{Kind: "commit", JobID: h.job.ID,
			Text: fmt.Sprintf("the receipt of %.8s could not be written (%v); the commit is kept without one", c.Hash, err)})
	}
}
