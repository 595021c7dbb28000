package tools

import (
	"context"
	"fmt"
	"strings"
)

type recordBaselineParams struct {
	Reason      string `json:"reason"`
	IssueType   string `json:"issueType" jsonschema:"Type of issue: 'Error' or 'Warning'"`
	Source      string `json:"source" jsonschema:"Source of the issue: 'Build', 'Lint', or 'Test'"`
	Pattern     string `json:"pattern" jsonschema:"The exact error/warning message or pattern to match"`
	FilePath    string `json:"filePath,omitempty" jsonschema:"Optional file path associated with this issue"`
	Description string `json:"description,omitempty" jsonschema:"Optional description for context"`
}

func newRecordBaseline() Tool {
	t := newTool("record_baseline", describe("record_baseline"), ReadOnly, runRecordBaseline).declare(EffectExecute, CategoryMutating)
	return t
}

func runRecordBaseline(ctx context.Context, s *Session, p recordBaselineParams) (Result, error) {
	if p.IssueType != "Error" && p.IssueType != "Warning" {
		return opError(fmt.Sprintf("Invalid issueType '%s'. Must be 'Error' or 'Warning'.", p.IssueType)), nil
	}
	if p.Source != "Build" && p.Source != "Lint" && p.Source != "Test" {
		return opError(fmt.Sprintf("Invalid source '%s'. Must be 'Build', 'Lint', or 'Test'.", p.Source)), nil
	}
	if strings.TrimSpace(p.Pattern) == "" {
		return opError("Pattern cannot be empty"), nil
	}
	id := s.AddBaseline(Baseline{IssueType: p.IssueType, Source: p.Source, Pattern: p.Pattern, FilePath: p.FilePath, Description: p.Description})
	return jsonResult(map[string]any{
		"success":    true,
		"baselineId": id,
		"message":    fmt.Sprintf("Recorded %s baseline from %s: %s", p.IssueType, p.Source, preview(p.Pattern)),
	}, false), nil
}
