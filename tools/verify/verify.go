// Package verify finds and runs a project's test runners, linters and
// build checks, and parses their output into structured reports.
//
// Detection reads a directory's project files (go.mod, package.json,
// pyproject.toml, Cargo.toml, …) and yields Checks: a command line and a
// parser. Commands prefer each tool's machine-readable output (go test
// -json, vitest/jest JSON reporters, pytest JUnit XML, eslint/biome/ruff
// JSON, cargo/clippy JSON messages); text is parsed only where a tool has
// nothing else (go build, go vet, cargo's test harness).
//
// The package never starts a process itself: the caller passes an Exec
// that runs a command confined (the tools package runs it in the
// session's sandbox), so every command of a gate is sandboxed like an
// agent's own.
package verify

import (
	"context"
	"strconv"
	"time"
)

// Kind is what a check verifies.
type Kind string

// Check kinds; quality gates run them in this order.
const (
	Build Kind = "build"
	Test  Kind = "test"
	Lint  Kind = "lint"
)

// Kinds lists every kind in gate order.
var Kinds = []Kind{Build, Test, Lint}

// Report statuses (coding-team-tools.md).
const (
	StatusPass  = "pass"
	StatusFail  = "fail"
	StatusError = "error"
)

// buildFailed starts the name of a test failure that is a package or
// crate that did not compile (its message holds the compiler's errors).
const buildFailed = "build failed: "

// Output is how a command ended.
type Output struct {
	ExitCode int
	Stdout   string
	Stderr   string
	TimedOut bool
	Duration time.Duration
}

// Exec runs a bash command line in dir (relative to the project root,
// "." for the root) within timeout. A command that fails or times out is
// an Output; the error is for a command that cannot run at all (no
// sandbox), and is reported to the model as status "error".
type Exec func(ctx context.Context, dir, command string, timeout time.Duration) (Output, error)

// TestFailure is one failing test (or a package that did not build).
type TestFailure struct {
	Name    string `json:"name"`
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
}

// Issue is one lint or compiler finding.
type Issue struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column,omitempty"`
	Severity string `json:"severity"` // "error" or "warning"
	Message  string `json:"message"`
	Rule     string `json:"rule"`
}

// Report is one check's outcome: the test counts and failures of a test
// run, or the issues of a lint or build.
type Report struct {
	Check   string `json:"check"` // "go test", "pytest", "eslint", …
	Kind    Kind   `json:"kind"`
	Dir     string `json:"dir"`
	Command string `json:"command"`
	Status  string `json:"status"`
	// ExitCode is the command's exit status (-1: it timed out or was
	// killed; 0 when it never ran, Status "error").
	ExitCode int `json:"exitCode"`
	// Error says why Status is "error" (the runner is missing, timed
	// out, or crashed) and what to do.
	Error    string        `json:"error,omitempty"`
	Passed   int           `json:"passed"`
	Failed   int           `json:"failed"`
	Skipped  int           `json:"skipped"`
	Failures []TestFailure `json:"failures,omitempty"`
	Issues   []Issue       `json:"issues,omitempty"`
	// PreExisting are failures and issues that match a preflight
	// baseline: reported, but they do not fail the report.
	PreExistingFailures []TestFailure `json:"preExistingFailures,omitempty"`
	PreExistingIssues   []Issue       `json:"preExistingIssues,omitempty"`
	Duration            time.Duration `json:"duration"`
	// Output is the command's whole output (stdout then stderr); tools
	// keep it out of the model's context.
	Output string `json:"-"`
}

// Errors and Warnings count the report's (new) issues by severity.
func (r *Report) Errors() int   { return r.count("error") }
func (r *Report) Warnings() int { return r.count("warning") }

func (r *Report) count(sev string) int {
	n := 0
	for _, i := range r.Issues {
		if i.Severity == sev {
			n++
		}
	}
	return n
}

// settle sets Status from what was parsed: "error" stays; new failures,
// error-severity issues, or failed tests the parser could not name fail;
// anything else (warnings, pre-existing failures only) passes.
func (r *Report) settle() {
	if r.Status == StatusError {
		return
	}
	r.Status = StatusPass
	unnamed := r.Failed > 0 && len(r.Failures) == 0 && len(r.PreExistingFailures) == 0
	if len(r.Failures) > 0 || r.Errors() > 0 || unnamed {
		r.Status = StatusFail
	}
}

// fail marks the report as an error with an explanation.
func (r *Report) fail(msg string) *Report {
	r.Status, r.Error = StatusError, msg
	return r
}

func itoa(n int) string { return strconv.Itoa(n) }
