package verify

import (
	"path"
	"strings"
)

// Baseline is a pre-existing issue recorded by preflight: a failure or
// issue whose text contains Pattern (and whose file is FilePath, when
// set) is not the pulse's doing.
type Baseline struct {
	Source   string // "Build", "Lint" or "Test"; "" matches any
	Pattern  string
	FilePath string
}

// source is the baseline source a check kind's findings are compared with.
func (k Kind) source() string {
	switch k {
	case Build:
		return "Build"
	case Test:
		return "Test"
	}
	return "Lint"
}

func (b Baseline) matches(k Kind, file, text string) bool {
	if b.Pattern == "" || !strings.Contains(text, b.Pattern) {
		return false
	}
	// A build error is often recorded from a lint or test run (go vet and
	// go test report compile errors too): Build matches every kind.
	if b.Source != "" && b.Source != k.source() && b.Source != "Build" && k != Build {
		return false
	}
	if b.FilePath == "" {
		return true
	}
	return file != "" && (path.Clean(file) == path.Clean(b.FilePath) || strings.HasSuffix(file, "/"+path.Clean(b.FilePath))) ||
		strings.Contains(text, b.FilePath)
}

// Filter moves the failures and issues that match a baseline to the
// report's PreExisting lists and settles its status again: a report whose
// every failure is pre-existing passes.
func (r *Report) Filter(baselines []Baseline) {
	if len(baselines) == 0 || r.Status == StatusError {
		return
	}
	known := func(file, text string) bool {
		for _, b := range baselines {
			if b.matches(r.Kind, file, text) {
				return true
			}
		}
		return false
	}
	var fails []TestFailure
	for _, f := range r.Failures {
		if known(f.File, f.Name+"\n"+f.Message) {
			r.PreExistingFailures = append(r.PreExistingFailures, f)
			continue
		}
		fails = append(fails, f)
	}
	var issues []Issue
	for _, i := range r.Issues {
		if known(i.File, i.Rule+" "+i.Message) {
			r.PreExistingIssues = append(r.PreExistingIssues, i)
			continue
		}
		issues = append(issues, i)
	}
	r.Failures, r.Issues = fails, issues
	r.settle()
}
