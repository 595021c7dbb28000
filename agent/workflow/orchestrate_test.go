package workflow

import (
	"context"
	"errors"
	"testing"
)

type scriptedRunner struct {
	outcomes map[string]PulseOutcome
	ran      []string
	cancel   context.CancelFunc
	cancelAt string
}

func (r *scriptedRunner) RunPulse(ctx context.Context, p PlannedPulse) (PulseOutcome, error) {
	r.ran = append(r.ran, p.ID)
	if p.ID == r.cancelAt {
		r.cancel()
		return PulseOutcome{}, context.Canceled
	}
	if out, ok := r.outcomes[p.ID]; ok {
		return out, nil
	}
	return PulseOutcome{Status: PulseSucceeded, Summary: "feat: " + p.ID}, nil
}

func TestRunPulses(t *testing.T) {
	plan := []PlannedPulse{{ID: "p1"}, {ID: "p2", DependsOn: []string{"p1"}}, {ID: "p3"}}
	tests := []struct {
		name     string
		outcomes map[string]PulseOutcome
		done     map[string]bool
		cancelAt string
		ran      string
		halt     PulseStatus
	}{
		{"all succeed", nil, nil, "", "p1,p2,p3", ""},
		{"resume skips done", nil, map[string]bool{"p1": true}, "", "p2,p3", ""},
		{"failure halts", map[string]PulseOutcome{"p2": {Status: PulseFailed, FailureReason: "iteration limit"}}, nil, "", "p1,p2", PulseFailed},
		{"unresolved issues halt", map[string]PulseOutcome{"p1": {Status: PulseSucceeded, Unresolved: []UnresolvedIssue{{Issue: "flaky", Reason: "env"}}}}, nil, "", "p1", PulseSucceeded},
		{"stop halts", nil, nil, "p2", "p1,p2", PulseStopped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r := &scriptedRunner{outcomes: tt.outcomes, cancel: cancel, cancelAt: tt.cancelAt}
			err := RunPulses(ctx, r, plan, tt.done)
			got := ""
			for i, id := range r.ran {
				if i > 0 {
					got += ","
				}
				got += id
			}
			if got != tt.ran {
				t.Errorf("ran %s, want %s", got, tt.ran)
			}
			var h *Halt
			if tt.halt == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if !errors.As(err, &h) || h.Status != tt.halt {
				t.Fatalf("err = %v, want halt %s", err, tt.halt)
			}
		})
	}
}
