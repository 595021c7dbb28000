package verify

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// goTestFail starts a failed test's block in go test's text output
// ("--- FAIL: TestX (0.00s)", indented for a subtest).
var goTestFail = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\s*)--- FAIL: (\S+)`) })

// goTestPackage is go test's per-package verdict ("FAIL\tpkg\t0.01s",
// "ok  \tpkg\t0.01s", "FAIL\tpkg [build failed]").
var goTestPackage = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:FAIL|ok)\s+(\S+)`) })

// diagnosticLine recognises lines that report an issue.
var diagnosticLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(\berror\b|\bwarning\b|\bFAIL\b|^\S+:\d+(:\d+)?:)`)
})

// summaryLine is a runner's summary, which repeats the failures it sums
// up (go test's "FAIL\tpkg", "FAIL", "PASS").
var summaryLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(FAIL|ok|PASS)(\s|$)|^exit status \d+$`) })

// fileRef is the file a diagnostic line starts with ("a/b.go:3:2: …").
var fileRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(\S+?):\d+(:\d+)?:`) })

// shellFinding is one failure found in a command's text output.
type shellFinding struct {
	file, text string
	// goTest: a failed go test, whose log names files relative to its
	// package's directory; pkg is its package's import path.
	goTest bool
	pkg    string
	// optional: a warning line, ignored when no baseline explains it.
	optional bool
}

// PreExistingIn returns the patterns of the baselines that explain a
// command's failed text output when every failure in it matches one (and
// there is at least one); nil otherwise. It is how a command the agent
// runs itself (go test, a build, a linter through shell) is judged against
// the baselines the quality gates filter with, by the same matcher: a
// failed go test (its "--- FAIL: TestX" block, with its package from the
// "FAIL\tpkg" line: run_tests records "pkg.TestX") by its name, package
// and log, any other diagnostic line by its text and the file it starts
// with (spec 004-24).
func PreExistingIn(output string, baselines []Baseline) []string {
	if len(baselines) == 0 {
		return nil
	}
	var matched []string
	for _, f := range shellFindings(output) {
		b := explain(f, baselines)
		if b == nil {
			if f.optional {
				continue
			}
			return nil // a new failure
		}
		if !containsString(matched, b.Pattern) {
			matched = append(matched, b.Pattern)
		}
	}
	if len(matched) == 0 {
		return nil
	}
	return matched
}

// explain is the first baseline that matches a finding.
func explain(f shellFinding, baselines []Baseline) *Baseline {
	for i, b := range baselines {
		if b.matches(f.file, f.text) {
			return &baselines[i]
		}
		// go test prints a test's file relative to its package directory:
		// "flaky_test.go" is the baseline's "calc/flaky_test.go".
		if f.goTest && f.file != "" && b.FilePath != "" && !strings.Contains(f.file, "/") &&
			path.Base(b.FilePath) == f.file && inPackage(path.Dir(path.Clean(b.FilePath)), f.pkg) && strings.Contains(f.text, b.Pattern) {
			return &baselines[i]
		}
	}
	return nil
}

// inPackage reports whether a directory of the project can be the
// package with import path pkg ("calc" is "example.com/m/calc"; "." is
// any package, the file's directory unknown).
func inPackage(dir, pkg string) bool {
	return dir == "." || pkg == dir || strings.HasSuffix(pkg, "/"+dir)
}

// shellFindings splits text output into failures: go test's failed tests
// (a "--- FAIL" line, its log and what the test printed, up to the next
// test or verdict) and the other diagnostic lines.
func shellFindings(output string) []shellFinding {
	type block struct {
		name   string
		indent int
		log    strings.Builder
		file   string
	}
	var out []shellFinding
	var open []*block    // the failed tests whose block is running, outermost first
	var pending []*block // failed tests waiting for their package's verdict
	// running holds what a test printed since go test -v announced it
	// ("=== RUN"): its log when it fails, ordinary output when it passes.
	var running []string
	inRun := false
	line := func(l string) {
		trimmed := strings.TrimSpace(l)
		if !diagnosticLine().MatchString(l) || summaryLine().MatchString(trimmed) {
			return
		}
		f := shellFinding{text: l}
		if m := fileRef().FindStringSubmatch(l); m != nil {
			f.file = m[1]
		}
		lower := strings.ToLower(l)
		f.optional = strings.Contains(lower, "warning") && !strings.Contains(l, "FAIL") && !strings.Contains(lower, "error")
		out = append(out, f)
	}
	endRun := func() {
		for _, l := range running {
			line(l)
		}
		running, inRun = nil, false
	}
	flush := func(pkg string) {
		endRun()
		for _, b := range pending {
			text := b.name + "\n" + b.log.String()
			if pkg != "" {
				text = pkg + "." + text
			}
			out = append(out, shellFinding{file: b.file, text: text, goTest: true, pkg: pkg})
		}
		pending, open = nil, nil
	}
	addLog := func(l string) {
		for _, b := range open {
			b.log.WriteString(l + "\n")
		}
		if m := fileRef().FindStringSubmatch(l); m != nil && open[len(open)-1].file == "" {
			open[len(open)-1].file = m[1]
		}
	}
	for _, l := range strings.Split(output, "\n") {
		trimmed := strings.TrimSpace(l)
		if m := goTestFail().FindStringSubmatch(l); m != nil {
			b := &block{name: m[2], indent: len(m[1])}
			for len(open) > 0 && open[len(open)-1].indent >= b.indent {
				open = open[:len(open)-1]
			}
			open = append(open, b)
			pending = append(pending, b)
			for _, r := range running {
				addLog(r)
			}
			running, inRun = nil, false
			continue
		}
		if m := goTestPackage().FindStringSubmatch(l); m != nil {
			flush(m[1])
			continue
		}
		if strings.HasPrefix(trimmed, "=== ") {
			endRun()
			open, inRun = nil, true
			continue
		}
		if strings.HasPrefix(trimmed, "--- PASS") || strings.HasPrefix(trimmed, "--- SKIP") {
			endRun()
			open = nil
			continue
		}
		switch {
		case summaryLine().MatchString(trimmed):
		case inRun:
			running = append(running, l)
		case len(open) > 0:
			addLog(l) // a failed test's log (and its subtests'), or what it printed or panicked with
		default:
			line(l)
		}
	}
	flush("")
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
