package tools

import (
	"context"
	"time"

	"github.com/autarch-dev/autarch/tools/verify"
)

// RunLintTimeout bounds one linter run.
const RunLintTimeout = 5 * time.Minute

type runLintParams struct {
	Reason string `json:"reason"`
	Path   string `json:"path,omitempty" jsonschema:"Subdirectory (or file) to lint; empty for the whole project"`
	Fix    bool   `json:"fix,omitempty" jsonschema:"Auto-fix issues"`
}

func newRunLint() Tool {
	t := newTool("run_lint", describe("run_lint"), Write, runRunLint).declare(EffectExecute, CategoryMutating)
	t.sensitive = func(runLintParams) bool { return true } // runs the project's tools (and writes with fix)
	return t
}

func runRunLint(ctx context.Context, s *Session, p runLintParams) (Result, error) {
	dir, rel, msg := s.checkTarget(p.Path)
	if msg != "" {
		return opError(msg), nil
	}
	baselines := len(s.Baselines())
	reports, found := s.lint(ctx, dir, rel, false)
	if !found {
		return jsonResult(map[string]any{"status": verify.StatusError, "errorCount": 0, "warningCount": 0, "issues": []verify.Issue{},
			"error": "no linter detected for " + dir + ": looked for go.mod (go vet, golangci-lint), eslint or biome in package.json, ruff for Python, clippy for Cargo.toml. Run the linter with shell instead."}, true), nil
	}
	var fixed *int
	if p.Fix {
		before := countIssues(reports)
		reports, _ = s.lint(ctx, dir, rel, true)
		if worst(reports) != verify.StatusError {
			// Linters report what remains after fixing: the difference is what they fixed.
			n := max(before-countIssues(reports), 0)
			fixed = &n
		}
	}
	s.keepReports(reports)
	return lintResult(reports, fixed, len(s.Baselines())-baselines, s.keepDetail(reports)), nil
}

// lint runs the linters that apply to dir (rel narrows them); found is
// false when none does.
func (s *Session) lint(ctx context.Context, dir, rel string, fix bool) (reports []verify.Report, found bool) {
	for _, c := range s.detector().Checks(dir, verify.Lint) {
		r := verify.Run(ctx, s.verifyExec(), c, verify.Target{Paths: targetIn(c.Dir, rel), Fix: fix}, RunLintTimeout)
		r.Filter(s.verifyBaselines())
		s.recordFound(&r)
		s.redactReport(&r)
		reports = append(reports, r)
	}
	return reports, len(reports) > 0
}

func countIssues(rs []verify.Report) int {
	n := 0
	for _, r := range rs {
		n += len(r.Issues) + len(r.PreExistingIssues)
	}
	return n
}

// lintResult is run_lint's result shape, summed over the linters;
// recorded counts the baselines preflight recorded from them.
func lintResult(rs []verify.Report, fixed *int, recorded int, detail string) Result {
	status := worst(rs)
	issues := []verify.Issue{}
	var pre []verify.Issue
	var errs, linters []string
	errors, warnings := 0, 0
	for _, r := range rs {
		issues = append(issues, r.Issues...)
		pre = append(pre, r.PreExistingIssues...)
		errors, warnings = errors+r.Errors(), warnings+r.Warnings()
		linters = append(linters, r.Check+" in "+r.Dir)
		if r.Error != "" {
			errs = append(errs, r.Check+": "+r.Error)
		}
	}
	out := map[string]any{"status": status, "errorCount": errors, "warningCount": warnings, "issues": issues, "linters": linters}
	if fixed != nil {
		out["fixedCount"] = *fixed
	}
	if len(pre) > 0 {
		out["preExisting"] = pre
	}
	return finishResult(out, errs, len(pre) > 0, recorded, "issues", detail)
}
