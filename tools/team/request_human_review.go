package team

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/tools"
)

type requestHumanReviewParams struct {
	// Reason is both the spec's "why escalation is needed" and the
	// engine's reason for the call: one field.
	Reason   string         `json:"reason"`
	Severity string         `json:"severity,omitempty" jsonschema:"low, medium or high"`
	Context  map[string]any `json:"context,omitempty" jsonschema:"Additional context (an object)"`
}

func newRequestHumanReview(job Job) tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, "request_human_review", describe("request_human_review"), tools.ReadOnly, func(ctx context.Context, s *tools.Session, p requestHumanReviewParams) (tools.Result, error) {
		if job == nil {
			return noJob("request_human_review"), nil
		}
		zero := map[string]any{"escalated": false, "escalationId": ""}
		if strings.TrimSpace(p.Reason) == "" {
			return failure("invalid_request", "reason is empty: say why a human must look", zero), nil
		}
		if msg := checkLevel("severity", p.Severity); msg != "" {
			return failure("invalid_request", msg, zero), nil
		}
		var context json.RawMessage
		if p.Context != nil {
			context, _ = json.Marshal(p.Context)
		}
		id, approved, feedback, err := job.Escalate(ctx, Escalation{Reason: p.Reason, Severity: p.Severity, Context: context})
		if err != nil {
			return tools.Result{}, fmt.Errorf("escalating: %w", err)
		}
		answer := "rejected"
		if approved {
			answer = "approved"
		}
		return tools.JSONResult(map[string]any{"escalated": true, "escalationId": id,
			"humanResponse": map[string]any{"approved": approved, "decision": answer, "feedback": feedback}}, false), nil
	})
}
