package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/autarch-dev/autarch/tools/verify"
)

// run_tests limits (coding-team-tools.md).
const (
	RunTestsTimeoutDefault = 60000
	RunTestsTimeoutMax     = 600000
)

type runTestsParams struct {
	Reason  string `json:"reason"`
	Path    string `json:"path,omitempty" jsonschema:"Subdirectory (or file) to test; empty for the whole project"`
	Pattern string `json:"pattern,omitempty" jsonschema:"Test name pattern (go test -run, pytest -k, vitest/jest -t, a cargo test filter) or test file (a path or a .js/.ts/.py file name)"`
	Timeout *int   `json:"timeout,omitempty" jsonschema:"Timeout in ms (default: 60000)"`
}

func newRunTests() Tool {
	t := newTool("run_tests", describe("run_tests"), Write, runRunTests).declare(EffectExecute, CategoryMutating)
	t.sensitive = func(runTestsParams) bool { return true } // runs the project's code
	return t
}

func runRunTests(ctx context.Context, s *Session, p runTestsParams) (Result, error) {
	timeout := RunTestsTimeoutDefault
	if p.Timeout != nil {
		timeout = *p.Timeout
		if timeout < 1000 || timeout > RunTestsTimeoutMax {
			return opError(fmt.Sprintf("timeout must be between 1000 and %d ms", RunTestsTimeoutMax)), nil
		}
	}
	dir, rel, msg := s.checkTarget(p.Path)
	if msg != "" {
		return opError(msg), nil
	}
	d := s.detector()
	checks := d.Checks(dir, verify.Test)
	if len(checks) == 0 {
		return jsonResult(map[string]any{"status": verify.StatusError, "passed": 0, "failed": 0, "skipped": 0, "duration": 0, "output": "",
			"error": "no test runner detected for " + dir + ": looked for go.mod, package.json with vitest or jest, pytest.ini/pyproject.toml/setup.py/setup.cfg/tox.ini, Cargo.toml. Run the tests with shell instead."}, true), nil
	}
	deadline := time.Now().Add(time.Duration(timeout) * time.Millisecond)
	baselines := len(s.Baselines())
	var reports []verify.Report
	for _, c := range checks {
		left := max(time.Until(deadline), time.Second)
		r := verify.Run(ctx, s.verifyExec(), c, verify.Target{Paths: targetIn(c.Dir, rel), Pattern: p.Pattern}, left)
		r.Filter(s.verifyBaselines())
		s.recordFound(&r)
		s.redactReport(&r)
		reports = append(reports, r)
	}
	if worst(reports) == verify.StatusPass && rel == "" && p.Pattern == "" {
		s.resolveCommandFailures() // spec 004-58: the whole project's tests pass
	}
	s.keepReports(reports)
	return testsResult(reports, len(s.Baselines())-baselines, s.keepDetail(reports)), nil
}

// testsResult is run_tests' result shape, summed over the runners;
// recorded counts the baselines preflight recorded from them.
func testsResult(rs []verify.Report, recorded int, detail string) Result {
	status := worst(rs)
	out := map[string]any{"status": status}
	var passed, failed, skipped int
	var dur time.Duration
	failures := []verify.TestFailure{}
	var pre []verify.TestFailure
	var runners, errs []string
	for _, r := range rs {
		passed, failed, skipped, dur = passed+r.Passed, failed+r.Failed, skipped+r.Skipped, dur+r.Duration
		failures = append(failures, r.Failures...)
		pre = append(pre, r.PreExistingFailures...)
		runners = append(runners, r.Check+" in "+r.Dir)
		if r.Error != "" {
			errs = append(errs, r.Check+": "+r.Error)
		}
	}
	out["passed"], out["failed"], out["skipped"], out["duration"] = passed, failed, skipped, dur.Milliseconds()
	if len(failures) > 0 {
		out["failures"] = failures
	}
	out["output"] = outputTail(rs)
	out["runners"] = runners
	if len(pre) > 0 {
		out["preExisting"] = pre
	}
	return finishResult(out, errs, len(pre) > 0, recorded, "failures", detail)
}
