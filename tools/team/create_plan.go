package team

import (
	"context"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/tools"
)

// maxPlanSteps bounds a plan.
const maxPlanSteps = 100

type createPlanParams struct {
	Reason          string     `json:"reason"`
	Steps           []PlanStep `json:"steps" jsonschema:"Planned steps, in order: {description, tool, files?}"`
	EstimatedSteps  *int       `json:"estimatedSteps,omitempty" jsonschema:"Expected step count"`
	EstimatedTokens *int       `json:"estimatedTokens,omitempty" jsonschema:"Expected token usage"`
}

func newCreatePlan(job Job) tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, "create_plan", describe("create_plan"), tools.ReadOnly, func(ctx context.Context, s *tools.Session, p createPlanParams) (tools.Result, error) {
		if job == nil {
			return noJob("create_plan"), nil
		}
		zero := map[string]any{"stored": false, "stepCount": 0}
		if msg := checkPlan(p); msg != "" {
			return failure("invalid_plan", msg, zero), nil
		}
		plan := Plan{Steps: p.Steps}
		if p.EstimatedSteps != nil {
			plan.EstimatedSteps = *p.EstimatedSteps
		}
		if p.EstimatedTokens != nil {
			plan.EstimatedTokens = *p.EstimatedTokens
		}
		id, err := job.SavePlan(ctx, plan)
		if err != nil {
			return tools.Result{}, fmt.Errorf("saving the plan: %w", err)
		}
		return tools.JSONResult(map[string]any{"stored": true, "planId": id, "stepCount": len(p.Steps)}, false), nil
	})
}

// checkPlan says what is wrong with a plan, or "".
func checkPlan(p createPlanParams) string {
	switch {
	case len(p.Steps) == 0:
		return "steps is empty: give at least one step {description, tool}"
	case len(p.Steps) > maxPlanSteps:
		return fmt.Sprintf("the plan has %d steps; keep it to %d", len(p.Steps), maxPlanSteps)
	case p.EstimatedSteps != nil && *p.EstimatedSteps < 0, p.EstimatedTokens != nil && *p.EstimatedTokens < 0:
		return "estimatedSteps and estimatedTokens may not be negative"
	}
	for i, st := range p.Steps {
		if strings.TrimSpace(st.Description) == "" || strings.TrimSpace(st.Tool) == "" {
			return fmt.Sprintf("step %d needs a description and the tool it will use", i+1)
		}
	}
	return ""
}
