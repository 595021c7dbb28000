package verify

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestGateRunSummaryAndFindings(t *testing.T) {
	many := make([]Issue, 12)
	for i := range many {
		many[i] = Issue{File: "a.go", Line: i + 1, Severity: "error", Message: "undefined: x", Rule: "compile"}
	}
	run := GateRun{Duration: 1500 * time.Millisecond, Reports: []Report{
		{Check: "go build", Kind: Build, Dir: ".", Status: StatusFail, Issues: many},
		{Check: "go test", Kind: Test, Dir: ".", Status: StatusFail, Passed: 3, Failed: 1, Skipped: 2,
			Failures: []TestFailure{{Name: "TestAdd", Message: "got 3\nwant 4"}}},
		{Check: "golangci-lint", Kind: Lint, Dir: ".", Status: StatusPass, Issues: []Issue{{File: "b.go", Line: 2, Severity: "warning", Message: "unused", Rule: "unused"}}},
		{Check: "eslint", Kind: Lint, Dir: "web", Status: StatusError, Error: "eslint is not installed: npm ci"},
	}}
	if got, want := run.Summary(), "quality gates in 1.5s: build go build: fail (12 issues); test go test: fail (3 passed, 1 failed, 2 skipped); lint golangci-lint: pass (1 issues); lint eslint: error"; got != want {
		t.Errorf("Summary:\n got %s\nwant %s", got, want)
	}
	var lines []string
	for _, f := range run.Findings() {
		lines = append(lines, f.Check+" | "+f.Summary)
	}
	want := []string{}
	for i := 1; i <= 10; i++ {
		want = append(want, fmt.Sprintf("quality gate build (go build in .) | a.go:%d: undefined: x [compile]", i))
	}
	want = append(want,
		"quality gate build (go build in .) | and more: run the check to see them all",
		"quality gate test (go test in .) | TestAdd: got 3\n    want 4",
		"quality gate lint (eslint in web) | could not run: eslint is not installed: npm ci")
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("Findings:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if got := (GateRun{Skipped: "no checks detected"}).Summary(); got != "quality gates skipped: no checks detected" {
		t.Errorf("skipped: %s", got)
	}
}
