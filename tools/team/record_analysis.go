package team

import (
	"context"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/tools"
)

type recordAnalysisParams struct {
	Reason     string   `json:"reason"`
	Findings   string   `json:"findings" jsonschema:"Analysis summary"`
	Files      []string `json:"files,omitempty" jsonschema:"Files analyzed"`
	Complexity string   `json:"complexity,omitempty" jsonschema:"low, medium or high"`
	Risks      []string `json:"risks,omitempty" jsonschema:"Identified risks"`
}

func newRecordAnalysis(job Job) tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, "record_analysis", describe("record_analysis"), tools.ReadOnly, func(ctx context.Context, s *tools.Session, p recordAnalysisParams) (tools.Result, error) {
		if job == nil {
			return noJob("record_analysis"), nil
		}
		zero := map[string]any{"recorded": false}
		if strings.TrimSpace(p.Findings) == "" {
			return failure("invalid_analysis", "findings is empty: summarise what you found", zero), nil
		}
		if msg := checkLevel("complexity", p.Complexity); msg != "" {
			return failure("invalid_analysis", msg, zero), nil
		}
		id, err := job.RecordAnalysis(ctx, Analysis{Findings: p.Findings, Files: p.Files, Complexity: p.Complexity, Risks: p.Risks})
		if err != nil {
			return tools.Result{}, fmt.Errorf("recording the analysis: %w", err)
		}
		return tools.JSONResult(map[string]any{"recorded": true, "analysisId": id}, false), nil
	})
}

// checkLevel accepts "", low, medium or high.
func checkLevel(field, v string) string {
	switch v {
	case "", "low", "medium", "high":
		return ""
	}
	return fmt.Sprintf("%s %q is not accepted: use low, medium or high", field, v)
}
