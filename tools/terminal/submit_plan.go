package terminal

import (
	"context"
	"fmt"

	"github.com/autarch-dev/autarch/tools"
)

// PlannedPulse is one pulse of a plan.
type PlannedPulse struct {
	ID              string   `json:"id" jsonschema:"Unique id, e.g. pulse-1"`
	Title           string   `json:"title" jsonschema:"Short, concrete pulse title"`
	Description     string   `json:"description" jsonschema:"What this pulse accomplishes and why"`
	ExpectedChanges []string `json:"expectedChanges" jsonschema:"File paths expected to be modified"`
	EstimatedSize   string   `json:"estimatedSize" jsonschema:"small, medium or large"`
	DependsOn       []string `json:"dependsOn,omitempty" jsonschema:"IDs of pulses that must complete first"`
}

// Plan is submit_plan's parameters.
type Plan struct {
	Reason          string         `json:"reason"`
	ApproachSummary string         `json:"approachSummary" jsonschema:"High-level description of how the solution will be implemented"`
	Pulses          []PlannedPulse `json:"pulses" jsonschema:"Ordered list of execution units"`
}

// Validate checks a plan: ids unique, sizes valid, dependencies known and
// earlier-or-later but acyclic.
func (p Plan) Validate() error {
	if blank(p.ApproachSummary) {
		return fmt.Errorf("approachSummary is required")
	}
	if len(p.Pulses) == 0 {
		return fmt.Errorf("pulses needs at least one pulse")
	}
	ids := map[string]int{}
	for i, pl := range p.Pulses {
		switch {
		case blank(pl.ID):
			return fmt.Errorf("pulses[%d] has no id", i)
		case blank(pl.Title) || blank(pl.Description):
			return fmt.Errorf("pulse %q needs a title and a description", pl.ID)
		case pl.EstimatedSize != "small" && pl.EstimatedSize != "medium" && pl.EstimatedSize != "large":
			return fmt.Errorf("pulse %q: estimatedSize %q is invalid: use small, medium or large", pl.ID, pl.EstimatedSize)
		}
		if _, dup := ids[pl.ID]; dup {
			return fmt.Errorf("pulse id %q is used twice", pl.ID)
		}
		ids[pl.ID] = i
	}
	state := map[string]int{}
	var visit func(id string) error
	visit = func(id string) error {
		switch state[id] {
		case 1:
			return fmt.Errorf("pulse %q is part of a dependency cycle", id)
		case 2:
			return nil
		}
		state[id] = 1
		for _, d := range p.Pulses[ids[id]].DependsOn {
			if _, ok := ids[d]; !ok {
				return fmt.Errorf("pulse %q depends on %q, which is not in the plan", id, d)
			}
			if err := visit(d); err != nil {
				return err
			}
		}
		state[id] = 2
		return nil
	}
	for _, pl := range p.Pulses {
		if err := visit(pl.ID); err != nil {
			return err
		}
	}
	return nil
}

func newSubmitPlan() tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, SubmitPlan, describe(SubmitPlan), tools.Terminal, func(ctx context.Context, s *tools.Session, p Plan) (tools.Result, error) {
		if err := p.Validate(); err != nil {
			return invalid("%v", err), nil
		}
		return accepted(SubmitPlan, map[string]any{"pulses": len(p.Pulses)}), nil
	})
}
