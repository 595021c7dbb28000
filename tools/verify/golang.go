package verify

import (
	"bufio"
	"encoding/json"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

func (d Detector) goChecks(dir string) []Check {
	var gone string
	if !d.look("go") {
		gone = missing("go", "install Go from https://go.dev/dl")
	}
	out := []Check{
		{Name: "go build", Kind: Build, Dir: dir, Missing: gone, goTool: true,
			// -o /dev/null: a single main package's executable would land
			// in the worktree, and a checkpoint would commit it
			command: func(t Target) string { return "go build -o /dev/null " + quote(goPackages(t)) }, parse: parseCompiler},
		{Name: "go test", Kind: Test, Dir: dir, Missing: gone, goTool: true, command: goTestCommand, parse: parseGoTest},
		{Name: "go vet", Kind: Lint, Dir: dir, Missing: gone, goTool: true,
			command: func(t Target) string { return "go vet " + quote(goPackages(t)) }, parse: parseCompiler},
	}
	if d.hasAny(dir, ".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json") {
		c := Check{Name: "golangci-lint", Kind: Lint, Dir: dir, parse: parseCompiler, command: func(t Target) string {
			args := []string{"golangci-lint", "run"}
			if t.Fix {
				args = append(args, "--fix")
			}
			return quote(append(args, goPackages(t)...))
		}}
		if !d.look("golangci-lint") {
			c.Missing = missing("golangci-lint", "it is configured (.golangci.*) but not on PATH; install it from https://golangci-lint.run")
		}
		out = append(out, c)
	}
	return out
}

// goPackages are the package patterns of a target: its packages, the
// directories of its paths (recursively), or ./... .
func goPackages(t Target) []string {
	if len(t.Packages) > 0 {
		return t.Packages
	}
	if len(t.Paths) == 0 {
		return []string{"./..."}
	}
	var out []string
	for _, p := range t.Paths {
		p = path.Clean(p)
		if strings.HasSuffix(p, ".go") {
			out = append(out, "./"+path.Dir(p))
			continue
		}
		if p == "." {
			out = append(out, "./...")
			continue
		}
		out = append(out, "./"+p+"/...")
	}
	return out
}

// goTestCommand runs the tests without go test's own vet pass: vet is
// the lint check (go vet), and a vet finding in go test fails the
// package before any test runs, so a baselined vet warning would hide
// failing tests.
func goTestCommand(t Target) string {
	args := []string{"go", "test", "-json", "-vet=off"}
	if t.Pattern != "" {
		args = append(args, "-run", t.Pattern)
	}
	return quote(append(args, goPackages(t)...))
}

// goEvent is one line of go test -json (test2json, with Go 1.24's build
// events).
type goEvent struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Output      string
	FailedBuild string
}

// parseGoTest reads go test -json: per-test results, per-package build
// failures with their compiler output, and package failures outside any
// test (a panic in TestMain, a missing dependency).
func parseGoTest(r *Report, out Output) {
	type key = testKey
	logs := map[key]*strings.Builder{}
	builds := map[string]*strings.Builder{}
	var failed []key
	var brokenBuilds []string
	pkgFailed := map[string]bool{}
	testFailedIn := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(out.Stdout))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	events := 0
	var text strings.Builder // the run as go test prints it without -json
	for sc.Scan() {
		var ev goEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			text.WriteString(sc.Text() + "\n")
			continue
		}
		events++
		text.WriteString(ev.Output)
		switch ev.Action {
		case "build-output":
			b := builds[ev.ImportPath]
			if b == nil {
				b = &strings.Builder{}
				builds[ev.ImportPath] = b
			}
			b.WriteString(ev.Output)
			continue
		case "build-fail":
			brokenBuilds = append(brokenBuilds, ev.ImportPath)
			continue
		}
		k := key{ev.Package, ev.Test}
		switch ev.Action {
		case "output":
			b := logs[k]
			if b == nil {
				b = &strings.Builder{}
				logs[k] = b
			}
			b.WriteString(ev.Output)
		case "pass":
			if ev.Test != "" {
				r.Passed++
			}
		case "skip":
			if ev.Test != "" {
				r.Skipped++
			}
		case "fail":
			if ev.Test != "" {
				r.Failed++
				failed = append(failed, k)
				testFailedIn[ev.Package] = true
			} else if ev.FailedBuild == "" {
				pkgFailed[ev.Package] = true
			}
		}
	}
	for _, ip := range brokenBuilds {
		msg := strings.TrimSpace(builds[ip].String())
		f := TestFailure{Name: buildFailed + ip, Message: msg}
		if is := compilerIssues(msg); len(is) > 0 {
			f.File, f.Line = is[0].File, is[0].Line
		}
		r.Failures = append(r.Failures, f)
		r.Failed++
	}
	for _, k := range failed {
		if hasFailedSubtest(failed, k) {
			r.Failed-- // reported through its failed subtests
			continue
		}
		r.Failures = append(r.Failures, TestFailure{Name: k.pkg + "." + k.test, Message: testLog(logs[k])})
	}
	for pkg := range pkgFailed {
		if testFailedIn[pkg] {
			continue
		}
		r.Failures = append(r.Failures, TestFailure{Name: pkg, Message: testLog(logs[key{pkg, ""}])})
		r.Failed++
	}
	if events == 0 && out.ExitCode != 0 {
		r.fail("go test did not run: " + firstLines(out.Stderr+out.Stdout, 20))
	}
	r.Output = text.String()
	if out.Stderr != "" {
		r.Output += "\n" + out.Stderr
	}
}

// testKey names a test of a package ("" for the package itself).
type testKey struct{ pkg, test string }

// hasFailedSubtest reports whether a failed test of k's package is a
// subtest of k.
func hasFailedSubtest(failed []testKey, k testKey) bool {
	for _, f := range failed {
		if f.pkg == k.pkg && strings.HasPrefix(f.test, k.test+"/") {
			return true
		}
	}
	return false
}

// testLog is a failed test's output without the runner's own lines.
func testLog(b *strings.Builder) string {
	if b == nil {
		return ""
	}
	var keep []string
	for _, l := range strings.Split(b.String(), "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- PASS") || t == "FAIL" || t == "PASS" ||
			strings.HasPrefix(t, "FAIL\t") || strings.HasPrefix(t, "ok  \t") || strings.HasPrefix(t, "exit status ") {
			continue
		}
		keep = append(keep, strings.TrimRight(l, " "))
	}
	return clip(strings.Join(keep, "\n"), maxMessage)
}

// maxMessage caps one failure's message; the whole output stays in the
// report's Output.
const maxMessage = 4000

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n…[" + strconv.Itoa(len(s)-n) + " more characters]"
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}

// compilerLine is file:line[:col]: message, as gc, go vet, golangci-lint
// and most compilers and linters print it.
var compilerLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:vet: )?(?:\./)?([^\s:][^:]*\.[A-Za-z0-9]+):(\d+)(?::(\d+))?: (.+)$`)
})

// golangciLinter is golangci-lint's trailing "(linter)".
var golangciLinter = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.*) \(([a-z0-9-]+)\)$`) })

// compilerIssues parses compiler-style lines into error issues.
func compilerIssues(text string) []Issue {
	var out []Issue
	seen := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		m := compilerLine().FindStringSubmatch(strings.TrimSpace(l))
		if m == nil || seen[m[0]] {
			continue
		}
		seen[m[0]] = true
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		msg, rule := m[4], ""
		if g := golangciLinter().FindStringSubmatch(msg); g != nil {
			msg, rule = g[1], g[2]
		}
		out = append(out, Issue{File: m[1], Line: line, Column: col, Severity: "error", Message: msg, Rule: rule})
	}
	return out
}

// parseCompiler reads go build, go vet and golangci-lint: every
// file:line finding is an error. A non-zero exit without any is an error
// report carrying the output (a missing module, a bad pattern).
func parseCompiler(r *Report, out Output) {
	r.Issues = compilerIssues(out.Stderr + "\n" + out.Stdout)
	for i := range r.Issues {
		if r.Issues[i].Rule == "" {
			r.Issues[i].Rule = r.Check
		}
	}
	if out.ExitCode != 0 && len(r.Issues) == 0 {
		r.fail(r.Check + " failed without a file:line diagnostic:\n" + firstLines(out.Stderr+"\n"+out.Stdout, 30))
	}
}
