package orchestrate

import (
	"context"
	"fmt"
	"strconv"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/receipt"
	"github.com/autarch-dev/autarch/tools/verify"
)

// writeReceipt writes the completion receipt of a round's commit (issue
// 32): the quality gates run on it, passing or not, and the swarm's
// baselines. The commit stays whatever happens here; a receipt that
// cannot be written is said in the swarm's events.
func (r *run) writeReceipt(ctx context.Context, commit string, g verify.Gates, gates verify.GateRun) {
	ctx = context.WithoutCancel(ctx)
	_, err := receipt.Record(ctx, r.o.cfg.Repo, receipt.Subject{Kind: receipt.SwarmRound, Commit: commit,
		Run:   receipt.Run{Kind: "swarm", ID: r.st.ID, Name: r.st.Branch, Step: "round-" + strconv.Itoa(r.st.Round)},
		Gates: g, Baselines: r.st.Baselines}, gates)
	if err != nil {
		r.emit(editor.SwarmEvent{Kind: "gates", Text: fmt.Sprintf("the receipt of round commit %.8s could not be written (%v); the commit is kept without one", commit, err)})
	}
}
