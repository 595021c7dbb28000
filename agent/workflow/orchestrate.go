package workflow

import (
	"context"
	"errors"
	"fmt"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/workspace/git"
)

// PulseStatus is the lifecycle state of a pulse (pulsing-phase.md), as
// the store records it.
type PulseStatus = store.PulseStatus

// Pulse states: Proposed → Running → Succeeded | Failed | Stopped.
const (
	PulseProposed  = store.PulseProposed
	PulseRunning   = store.PulseRunning
	PulseSucceeded = store.PulseSucceeded
	PulseFailed    = store.PulseFailed
	PulseStopped   = store.PulseStopped
)

// PulseOutcome is how one pulse's agent run ended.
type PulseOutcome struct {
	Status PulseStatus
	// Summary is the Conventional Commit summary of a completed pulse.
	Summary string
	// Unresolved is set when the pulse completed through the escape hatch.
	Unresolved []UnresolvedIssue
	// FailureReason explains a Failed or Stopped pulse.
	FailureReason string

	checkpoint git.Checkpoint // a parallel pulse's commit, not landed yet
}

// PulseRunner runs one pulse to its end: the agent loop in the worktree,
// completion validation, the checkpoint (or recovery) commit.
type PulseRunner interface {
	RunPulse(ctx context.Context, p PlannedPulse) (PulseOutcome, error)
}

// Halt says why orchestration stopped before every pulse succeeded.
type Halt struct {
	// Stage is where the workflow halted (set outside Pulsing).
	Stage  Stage
	Pulse  string
	Status PulseStatus
	Reason string
}

func (h *Halt) Error() string {
	if h.Pulse == "" {
		return fmt.Sprintf("workflow halted in %s: %s", h.Stage, h.Reason)
	}
	return fmt.Sprintf("orchestration halted at pulse %s (%s): %s", h.Pulse, h.Status, h.Reason)
}

// RunPulses runs the pulses in execution order, skipping those already
// Succeeded (done holds their ids, for resume). It returns nil when every
// pulse succeeded cleanly (the workflow moves to Review), a *Halt when a
// pulse failed, was stopped, or completed with unresolved issues, and any
// other error for broken infrastructure.
func RunPulses(ctx context.Context, r PulseRunner, plan []PlannedPulse, done map[string]bool) error {
	ordered, err := Order(plan)
	if err != nil {
		return fmt.Errorf("plan cannot run: %w", err)
	}
	for _, p := range ordered {
		if done[p.ID] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return &Halt{Pulse: p.ID, Status: PulseStopped, Reason: "the workflow was stopped"}
		}
		out, err := r.RunPulse(ctx, p)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return &Halt{Pulse: p.ID, Status: PulseStopped, Reason: "the workflow was stopped"}
			}
			return fmt.Errorf("pulse %s: %w", p.ID, err)
		}
		switch {
		case out.Status != PulseSucceeded:
			return &Halt{Pulse: p.ID, Status: out.Status, Reason: out.FailureReason}
		case len(out.Unresolved) > 0:
			return &Halt{Pulse: p.ID, Status: out.Status, Reason: fmt.Sprintf("completed with %s; a human must review before the next pulse", plural(len(out.Unresolved), "unresolved issue"))}
		}
	}
	return nil
}

// plural writes a count with its noun: "1 pulse", "2 pulses".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
