package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/autarch-dev/autarch/tools/verify"
)

// maxOutputTail is how much of a check's output run_tests and run_lint
// hand to the model; the whole output is kept in a detail file.
const maxOutputTail = 2000

// verifyExec runs verification commands in the session's sandbox, like
// shell's, in a directory of the root.
func (s *Session) verifyExec() verify.Exec {
	return func(ctx context.Context, dir, command string, timeout time.Duration) (verify.Output, error) {
		if dir != "" && dir != "." {
			command = "cd " + shellQuote(dir) + " && " + command
		}
		start := time.Now()
		run, err := s.runCommand(asGate(ctx, verify.GoCommand(ctx)), command, timeout)
		stderr := run.stderr
		for _, n := range run.notices {
			stderr += "\n" + n
		}
		return verify.Output{ExitCode: run.code, Stdout: run.stdout, Stderr: stderr, TimedOut: run.timedOut, Duration: time.Since(start)}, err
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// detector finds the session's projects' checks.
func (s *Session) detector() verify.Detector { return verify.Detector{Root: s.root.Dir()} }

// LastReports are the reports of the session's last run_tests or
// run_lint call (nil before any), as the model's result summarises them:
// a job's commit receipt rests on them.
func (s *Session) LastReports() []verify.Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.lastReports)
}

func (s *Session) keepReports(rs []verify.Report) {
	s.mu.Lock()
	s.lastReports = slices.Clone(rs)
	s.mu.Unlock()
}

// verifyBaselines are the session's baselines for filtering reports.
func (s *Session) verifyBaselines() []verify.Baseline {
	bs := s.Baselines()
	out := make([]verify.Baseline, len(bs))
	for i, b := range bs {
		out[i] = verify.Baseline{Source: b.Source, Pattern: b.Pattern, FilePath: b.FilePath}
	}
	return out
}

// recordFound, in preflight, records the report's new failures and issues
// as baselines and files them under pre-existing: preflight runs before
// any change, so what it finds is not the pulses' doing, and the model
// need not copy findings into record_baseline.
func (s *Session) recordFound(r *verify.Report) {
	if s.cfg.Role != "preflight" || r.Status == verify.StatusError {
		return
	}
	found := r.Baselines()
	for _, b := range found {
		s.AddBaseline(Baseline{IssueType: b.IssueType, Source: b.Source, Pattern: b.Pattern, FilePath: b.FilePath, Description: b.Description})
	}
	if len(found) > 0 {
		r.Filter(s.verifyBaselines())
	}
}

// redactReport passes what a report shows through the secret gate.
func (s *Session) redactReport(r *verify.Report) {
	for _, fs := range [][]verify.TestFailure{r.Failures, r.PreExistingFailures} {
		for i := range fs {
			fs[i].Message = s.gate.RedactLines(fs[i].Message)
		}
	}
	for _, is := range [][]verify.Issue{r.Issues, r.PreExistingIssues} {
		for i := range is {
			is[i].Message = s.gate.RedactLines(is[i].Message)
		}
	}
	r.Error = s.gate.RedactLines(r.Error)
	r.Output = s.gate.RedactLines(r.Output)
}

// keepDetail writes a report's whole output to the state directory and
// returns its path ("" when the session has no state directory).
func (s *Session) keepDetail(rs []verify.Report) string {
	if s.cfg.StateDir == "" || len(rs) == 0 {
		return ""
	}
	dir := filepath.Join(s.cfg.StateDir, "verify")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "$ (cd %s && %s)\n%s\n[%s, %s]\n\n", r.Dir, r.Command, r.Output, r.Status, r.Duration.Round(time.Millisecond))
	}
	name := filepath.Join(dir, fmt.Sprintf("%s-%d.log", strings.ReplaceAll(rs[0].Check, " ", "-"), time.Now().UnixNano()))
	if err := os.WriteFile(name, []byte(b.String()), 0o600); err != nil {
		return ""
	}
	return name
}

// outputTail is the end of the reports' output, for the model.
func outputTail(rs []verify.Report) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.Output)
	}
	out := strings.TrimSpace(b.String())
	if len(out) > maxOutputTail {
		out = "…[" + fmt.Sprint(len(out)-maxOutputTail) + " characters before; see detail]\n" + out[len(out)-maxOutputTail:]
	}
	return out
}

// worst is the combined status of several reports.
func worst(rs []verify.Report) string {
	st := verify.StatusPass
	for _, r := range rs {
		switch r.Status {
		case verify.StatusError:
			return verify.StatusError
		case verify.StatusFail:
			st = verify.StatusFail
		}
	}
	return st
}

// checkTarget resolves a tool's path argument: the directory whose
// projects are checked and the target paths relative to each project.
func (s *Session) checkTarget(p string) (dir string, rel string, errMsg string) {
	if p == "" || p == "." {
		return ".", "", ""
	}
	clean, err := s.root.Clean(p)
	if err != nil {
		return "", "", err.Error()
	}
	if _, err := os.Stat(s.root.Abs(clean)); err != nil {
		return "", "", fmt.Sprintf("path not found: %s", p)
	}
	return clean, clean, ""
}

// targetIn is a target's path relative to a project directory.
func targetIn(project, rel string) []string {
	if rel == "" || rel == project {
		return nil
	}
	if project == "." {
		return []string{rel}
	}
	if r, ok := strings.CutPrefix(rel, project+"/"); ok {
		return []string{r}
	}
	return nil // rel encloses the project: all of it
}

// finishResult adds what run_tests' and run_lint's results share: the
// runners' errors, the note on pre-existing findings, the detail file.
func finishResult(out map[string]any, errs []string, preExisting bool, recorded int, what, detail string) Result {
	if len(errs) > 0 {
		out["error"] = strings.Join(errs, "\n")
	}
	switch {
	case recorded > 0:
		out["recordedBaselines"] = recorded
		out["note"] = fmt.Sprintf("Preflight recorded the %d %s found here as baselines (listed under preExisting): pulses are not blamed for them. Do not record them again with record_baseline.", recorded, what)
	case preExisting:
		out["note"] = "preExisting " + what + " match baselines recorded in preflight: they are not caused by this work and do not count against it."
	}
	if detail != "" {
		out["detail"] = detail
	}
	return jsonResult(out, out["status"] != verify.StatusPass)
}
