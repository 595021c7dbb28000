package orchestrate

import (
	"context"
	"testing"

	"github.com/autarch-dev/autarch/receipt"
	"github.com/autarch-dev/autarch/tools"
)

// TestSwarmRoundReceipt: a round's commit carries a receipt of its gates,
// the base's failure pre-existing (naming its baseline), and verify finds
// it holds.
func TestSwarmRoundReceipt(t *testing.T) {
	w := newWorld(t, "gates-pass")
	goProject(t, w, map[string]string{"old.go": "package main\n\nvar old int = \"pre-existing\"\n"})
	st := runGated(t, w, 1)
	ctx := context.Background()
	r, err := receipt.Read(ctx, w.repo, st.Commits[0])
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != receipt.SwarmRound || r.Run.ID != st.ID || r.Run.Step != "round-1" || len(r.Checks) == 0 || len(r.Baseline.Items) == 0 {
		t.Fatalf("receipt = %+v", r)
	}
	pre := 0
	for _, c := range r.Checks {
		for _, f := range c.PreExisting {
			if f.Baseline == "" || f.Signature == "" {
				t.Errorf("pre-existing finding without its baseline: %+v", f)
			}
			pre++
		}
	}
	if pre == 0 {
		t.Errorf("the base's failure is not in the receipt as pre-existing: %+v", r.Checks)
	}
	policy, err := tools.CommandPolicyFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	gates := receipt.SessionGates(tools.SessionConfig{Mode: tools.ModeYolo, Commands: policy, GitCommonDir: w.repo.CommonDir()})
	res, err := receipt.Verify(ctx, w.repo, st.Commits[0], receipt.Options{Gates: gates})
	if err != nil || !res.OK {
		t.Errorf("verify: %v\n%s", err, res.Text())
	}
}
