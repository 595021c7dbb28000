package verify

import (
	"path"
	"slices"
	"strings"
)

// Baseline is a pre-existing issue recorded by preflight: a failure or
// issue whose text contains Pattern (and whose file is FilePath, when
// set) is not the pulse's doing.
type Baseline struct {
	Source   string // "Build", "Lint" or "Test"; "" matches any
	Pattern  string
	FilePath string
	// IssueType ("Error" or "Warning") and Description say what was
	// found; matching ignores them.
	IssueType   string
	Description string
}

// Matches reports whether the baseline explains a finding in file whose
// text is a failing test's name and message ("name\nmessage") or an
// issue's rule and message ("rule message"), as Filter matches them.
func (b Baseline) Matches(file, text string) bool { return b.matches(file, text) }

// matches reports whether the baseline explains a finding. Source is not
// compared: the same compile or vet error surfaces in a build, a test run
// (go test vets and compiles) and a linter, whichever the baseline was
// recorded from.
func (b Baseline) matches(file, text string) bool {
	if b.Pattern == "" || !strings.Contains(text, b.Pattern) {
		return false
	}
	if b.FilePath == "" {
		return true
	}
	fp := path.Clean(b.FilePath)
	return file != "" && (path.Clean(file) == fp || strings.HasSuffix(file, "/"+fp)) || strings.Contains(text, b.FilePath)
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
			if b.matches(file, text) {
				return true
			}
		}
		return false
	}
	var fails []TestFailure
	for _, f := range r.Failures {
		if diags := compilerIssues(f.Message); strings.HasPrefix(f.Name, buildFailed) && len(diags) > 0 {
			// A build failure is pre-existing only when each of its errors is.
			all := true
			for _, d := range diags {
				all = all && known(path.Join(r.Dir, d.File), d.Message)
			}
			if all {
				r.PreExistingFailures = append(r.PreExistingFailures, f)
			} else {
				fails = append(fails, f)
			}
			continue
		}
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

// Baselines are the baselines that make the report's new failures and
// issues pre-existing, as Filter matches them: a failing test by its name
// (and file), a build failure by each of its compiler errors (in their
// files), an issue by its message in its file. Preflight records them:
// what it finds before any change is not the pulses' doing.
func (r *Report) Baselines() []Baseline {
	source := map[Kind]string{Build: "Build", Test: "Test", Lint: "Lint"}[r.Kind]
	var out []Baseline
	add := func(b Baseline) {
		if b.Pattern != "" && !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	for _, f := range r.Failures {
		if diags := compilerIssues(f.Message); strings.HasPrefix(f.Name, buildFailed) && len(diags) > 0 {
			for _, d := range diags {
				add(Baseline{Source: source, Pattern: d.Message, FilePath: path.Join(r.Dir, d.File), IssueType: "Error",
					Description: r.Check + ": " + f.Name})
			}
			continue
		}
		add(Baseline{Source: source, Pattern: f.Name, FilePath: f.File, IssueType: "Error", Description: r.Check + ": failing test"})
	}
	for _, i := range r.Issues {
		b := Baseline{Source: source, Pattern: i.Message, FilePath: i.File, IssueType: "Warning", Description: r.Check + " " + i.Rule}
		if i.Severity == "error" {
			b.IssueType = "Error"
		}
		if b.Pattern == "" {
			b.Pattern = i.Rule
		}
		add(b)
	}
	return out
}
