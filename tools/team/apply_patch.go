package team

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/unidiff"
)

// apply_patch's error codes (coding-team-tools.md).
const (
	CodeInvalidPatch   = "invalid_patch"
	CodeApplyError     = "apply_error"
	CodeLimitsExceeded = "limits_exceeded"
)

type applyPatchParams struct {
	Reason string `json:"reason"`
	Patch  string `json:"patch" jsonschema:"Unified diff of one or more files (--- a/path, +++ b/path, @@ -a,b +c,d @@ hunks; /dev/null for created and deleted files)"`
	DryRun bool   `json:"dryRun,omitempty" jsonschema:"Validate without applying"`
}

func newApplyPatch(job Job) tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectEdit, Category: tools.CategoryMutating}, "apply_patch", describe("apply_patch"), tools.Write, func(ctx context.Context, s *tools.Session, p applyPatchParams) (tools.Result, error) {
		mode := Genius
		if job != nil {
			mode = job.Mode()
		}
		res := applyPatch(s, mode, p.Patch, p.DryRun)
		return res, report(ctx, "apply_patch", res)
	})
}

// report tells the job's event sink (ToolContext.LogEvent) the outcome of
// a mutating call: kind "applied" or "refused", with the result's fields.
func report(ctx context.Context, tool string, res tools.Result) error {
	var data map[string]any
	json.Unmarshal([]byte(res.Output), &data)
	kind := "applied"
	if res.Failed {
		kind = "refused"
	}
	if err := tools.ToolContextFrom(ctx).Event(ctx, tools.ToolEvent{Tool: tool, Kind: kind, Data: data}); err != nil {
		return fmt.Errorf("recording the %s event: %w", tool, err)
	}
	return nil
}

// ApplyPatch validates and applies a multi-file unified diff in the
// session's root, all or nothing; the result is apply_patch's. In mechanic
// mode a patch may change at most MechanicMaxFiles files and
// MechanicMaxLines lines. It never panics, whatever the patch.
func applyPatch(s *tools.Session, mode Mode, patch string, dryRun bool) tools.Result {
	zero := map[string]any{"applied": false, "filesModified": 0, "linesChanged": 0}
	files, err := unidiff.ParsePatch(patch)
	if err != nil {
		return failure(CodeInvalidPatch, "the patch is not a valid unified diff: "+err.Error(), zero)
	}
	lines := 0
	for _, f := range files {
		if f.Path() == "" {
			return failure(CodeInvalidPatch, "the patch has no file headers: start each file's hunks with --- a/<path> and +++ b/<path> lines", zero)
		}
		if f.Binary {
			return failure(CodeInvalidPatch, f.Path()+": binary patches are not supported; change text files only", zero)
		}
		lines += f.LinesChanged()
	}
	touched := touchedFiles(files)
	if mode == Mechanic && (len(touched) > MechanicMaxFiles || lines > MechanicMaxLines) {
		return failure(CodeLimitsExceeded, fmt.Sprintf("mechanic mode allows at most %d files and %d changed lines per patch; this one changes %d files and %d lines: split it into smaller patches", MechanicMaxFiles, MechanicMaxLines, len(touched), lines), zero)
	}
	plan, msg := s.PlanPatch(files, false)
	if msg != "" {
		return failure(CodeApplyError, msg, zero)
	}
	out := map[string]any{"applied": !dryRun, "filesModified": len(touched), "linesChanged": lines}
	if dryRun {
		out["dryRun"] = true
		return tools.JSONResult(out, false)
	}
	if err := s.ApplyPatchPlan(plan); err != nil {
		return failure(CodeApplyError, "writing the patch failed and every file was restored: "+err.Error(), zero)
	}
	return tools.JSONResult(out, false)
}

// touchedFiles are the distinct paths a patch changes (both sides of a rename).
func touchedFiles(files []unidiff.FilePatch) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		for _, p := range []string{f.OldPath, f.NewPath} {
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}
