package verify

import (
	"encoding/json"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// nodeBin finds a package's executable in node_modules/.bin of dir or an
// ancestor up to the root (npm workspaces hoist them); "" when absent.
// The path is relative to dir, where the command runs.
func (d Detector) nodeBin(dir, name string) string {
	for p := dir; ; p = path.Dir(p) {
		bin := path.Join(p, "node_modules", ".bin", name)
		if d.exists(bin) {
			rel := "./" + bin
			if dir != "." {
				rel = strings.Repeat("../", strings.Count(dir, "/")+1) + bin
			}
			return rel
		}
		if p == "." {
			return ""
		}
	}
}

// nodePackageMajor is the major version of an installed package found
// from dir like nodeBin finds executables; 0 when unknown.
func (d Detector) nodePackageMajor(dir, pkg string) int {
	for p := dir; ; p = path.Dir(p) {
		var meta struct {
			Version string `json:"version"`
		}
		if json.Unmarshal([]byte(d.read(path.Join(p, "node_modules", pkg, "package.json"))), &meta) == nil && meta.Version != "" {
			major, _, _ := strings.Cut(meta.Version, ".")
			n, _ := strconv.Atoi(major)
			return n
		}
		if p == "." {
			return 0
		}
	}
}

func (d Detector) nodeChecks(dir string) []Check {
	var pkg struct {
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	_ = json.Unmarshal([]byte(d.read(path.Join(dir, "package.json"))), &pkg)
	has := func(name string) bool {
		_, a := pkg.Dependencies[name]
		_, b := pkg.DevDependencies[name]
		return a || b
	}
	tool := func(name, pkgName string, kind Kind, parse func(*Report, Output), command func(bin string, t Target) string) Check {
		c := Check{Name: name, Kind: kind, Dir: dir, parse: parse}
		bin := d.nodeBin(dir, name)
		switch {
		case !d.look("node"):
			c.Missing = missing("node", "install Node.js")
		case bin == "":
			where := "the project root"
			if dir != "." {
				where = dir
			}
			c.Missing = missing(name, pkgName+" is in package.json or configured, but not in node_modules: run npm install (or npm ci) in "+where+" (preflight installs dependencies)")
		}
		c.command = func(t Target) string { return command(bin, t) }
		return c
	}
	var out []Check
	switch {
	case has("vitest"):
		out = append(out, tool("vitest", "vitest", Test, parseJestJSON, func(bin string, t Target) string {
			args := []string{bin, "run"}
			if t.Related {
				args = []string{bin, "related", "--run", "--passWithNoTests"}
			}
			args, files := jsPattern(append(args, "--reporter=default", "--reporter=json"), t.Pattern)
			// The JSON report goes to a file: tests' own console output
			// goes to stdout, where it would corrupt it.
			return withReport(quote(append(append(args, files...), t.Paths...)) + ` --outputFile.json="$f"`)
		}))
	case has("jest"):
		out = append(out, tool("jest", "jest", Test, parseJestJSON, func(bin string, t Target) string {
			args := []string{bin, "--ci", "--json"}
			if t.Related {
				args = append(args, "--passWithNoTests", "--findRelatedTests")
			}
			args, files := jsPattern(args, t.Pattern)
			return withReport(quote(append(append(args, files...), t.Paths...)) + ` --outputFile="$f"`)
		}))
	}
	if has("eslint") || d.hasAny(dir, "eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", "eslint.config.ts", ".eslintrc.json", ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.yml", ".eslintrc") {
		out = append(out, tool("eslint", "eslint", Lint, parseESLint, func(bin string, t Target) string {
			args := []string{bin, "-f", "json"}
			if t.Fix {
				args = append(args, "--fix")
			}
			if len(t.Paths) == 0 {
				return quote(append(args, "."))
			}
			return quote(append(args, t.Paths...))
		}))
	}
	if has("@biomejs/biome") || d.hasAny(dir, "biome.json", "biome.jsonc") {
		// Biome prints at most 20 diagnostics by default; 2.x lifts the
		// limit with "none", 1.x allows up to 200.
		limit := "--max-diagnostics=none"
		if m := d.nodePackageMajor(dir, "@biomejs/biome"); m == 1 {
			limit = "--max-diagnostics=200"
		}
		out = append(out, tool("biome", "@biomejs/biome", Lint, parseBiome, func(bin string, t Target) string {
			args := []string{bin, "lint", "--reporter=json", limit}
			if t.Fix {
				args = append(args, "--write")
			}
			return quote(append(args, t.Paths...))
		}))
	}
	return out
}

// jsPattern puts a test pattern into a vitest or jest command: a file
// pattern as files, to go after the options (a positional pattern is a
// test path pattern in every jest version: --testPathPattern became
// --testPathPatterns in 30), any other as --testNamePattern.
func jsPattern(args []string, pattern string) (_, files []string) {
	switch {
	case pattern == "":
	case jsFilePattern(pattern):
		files = append(files, pattern)
	default:
		args = append(args, "--testNamePattern", pattern)
	}
	return args, files
}

// jsFilePattern reports whether a run_tests pattern names test files (a
// path or a file name) rather than tests.
func jsFilePattern(p string) bool {
	if strings.Contains(p, "/") {
		return true
	}
	for _, ext := range []string{".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte"} {
		if strings.HasSuffix(p, ext) {
			return true
		}
	}
	return false
}

// jsonStart drops anything printed before a JSON document (npm's banners).
func jsonStart(s string) string {
	if i := strings.IndexAny(s, "{["); i > 0 {
		return s[i:]
	}
	return s
}

// parseJestJSON reads the JSON report of jest --json and vitest's json
// reporter (the same shape), from the report file or, failing that,
// stdout. The model sees the runner's human output.
func parseJestJSON(r *Report, out Output) {
	text, report := splitReport(out.Stdout)
	if strings.TrimSpace(report) == "" {
		report = text
	}
	r.Output = stripANSI(joinOutput(Output{Stdout: text, Stderr: out.Stderr}))
	var rep struct {
		NumPassedTests  int `json:"numPassedTests"`
		NumFailedTests  int `json:"numFailedTests"`
		NumPendingTests int `json:"numPendingTests"`
		NumTodoTests    int `json:"numTodoTests"`
		TestResults     []struct {
			Name             string `json:"name"`
			Status           string `json:"status"`
			Message          string `json:"message"`
			AssertionResults []struct {
				FullName        string   `json:"fullName"`
				Status          string   `json:"status"`
				FailureMessages []string `json:"failureMessages"`
			} `json:"assertionResults"`
		} `json:"testResults"`
	}
	if err := json.Unmarshal([]byte(jsonStart(strings.TrimSpace(report))), &rep); err != nil {
		r.fail(r.Check + " wrote no readable JSON report (exit status " + itoa(out.ExitCode) + "):\n" + firstLines(out.Stderr+"\n"+text, 30))
		return
	}
	r.Passed, r.Failed, r.Skipped = rep.NumPassedTests, rep.NumFailedTests, rep.NumPendingTests+rep.NumTodoTests
	for _, f := range rep.TestResults {
		failedHere := false
		for _, a := range f.AssertionResults {
			if a.Status == "failed" {
				failedHere = true
				msg := jsStack(strings.Join(a.FailureMessages, "\n"))
				r.Failures = append(r.Failures, TestFailure{Name: a.FullName, Message: clip(msg, maxMessage), File: f.Name, Line: stackLine(msg, f.Name)})
			}
		}
		if f.Status == "failed" && !failedHere {
			// The file did not load (a syntax error, a failing import).
			r.Failed++
			msg := jsStack(f.Message)
			r.Failures = append(r.Failures, TestFailure{Name: f.Name, Message: clip(msg, maxMessage), File: f.Name, Line: stackLine(msg, f.Name)})
		}
	}
}

// ansi matches terminal colour and cursor sequences.
var ansi = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("\x1b\\[[0-9;?]*[A-Za-z]") })

// stripANSI removes terminal escape sequences (runners colour their
// messages even when not on a terminal).
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b[") {
		return s
	}
	return ansi().ReplaceAllString(s, "")
}

// jsStack is a failure message without colours and without the stack
// frames of the runner and of Node itself, which say nothing about the
// code under test.
func jsStack(msg string) string {
	msg = stripANSI(msg)
	lines := strings.Split(msg, "\n")
	keep := lines[:0]
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "at ") && (strings.Contains(t, "/node_modules/") || strings.Contains(t, "node:internal") || strings.HasSuffix(t, "(<anonymous>)")) {
			continue
		}
		keep = append(keep, l)
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

// stackLine is the line of the first stack frame in file (absolute, as
// the runners name test files), 0 when there is none.
func stackLine(msg, file string) int {
	if file == "" {
		return 0
	}
	for rest := msg; ; {
		i := strings.Index(rest, file+":")
		if i < 0 {
			return 0
		}
		rest = rest[i+len(file)+1:]
		end := strings.IndexFunc(rest, func(c rune) bool { return c < '0' || c > '9' })
		if end < 0 {
			end = len(rest)
		}
		if n, err := strconv.Atoi(rest[:end]); err == nil && n > 0 {
			return n
		}
	}
}

// parseESLint reads eslint -f json.
func parseESLint(r *Report, out Output) {
	var files []struct {
		FilePath string `json:"filePath"`
		Messages []struct {
			RuleID   *string `json:"ruleId"`
			Severity int     `json:"severity"`
			Fatal    bool    `json:"fatal"`
			Message  string  `json:"message"`
			Line     int     `json:"line"`
			Column   int     `json:"column"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(jsonStart(strings.TrimSpace(out.Stdout))), &files); err != nil {
		r.fail("eslint did not report (exit status " + itoa(out.ExitCode) + "):\n" + firstLines(out.Stderr+"\n"+out.Stdout, 20))
		return
	}
	for _, f := range files {
		for _, m := range f.Messages {
			is := Issue{File: f.FilePath, Line: m.Line, Column: m.Column, Severity: "warning", Message: m.Message, Rule: "eslint"}
			if m.Severity == 2 {
				is.Severity = "error"
			}
			switch {
			case m.RuleID != nil:
				is.Rule = *m.RuleID
			case m.Fatal:
				is.Rule = "syntax-error"
			}
			r.Issues = append(r.Issues, is)
		}
	}
}

// parseBiome reads biome lint --reporter=json. Its shape is marked
// experimental: unknown fields are ignored, the message is "message"
// (2.x) or "description" (1.x), the path a string or {"file": …}.
// Information and hint diagnostics (a deprecated configuration key) are
// not issues.
func parseBiome(r *Report, out Output) {
	var rep struct {
		Diagnostics []struct {
			Category    string `json:"category"`
			Severity    string `json:"severity"`
			Message     string `json:"message"`
			Description string `json:"description"`
			Location    struct {
				Path  any `json:"path"`
				Start *struct {
					Line   int `json:"line"`
					Column int `json:"column"`
				} `json:"start"`
			} `json:"location"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(jsonStart(strings.TrimSpace(out.Stdout))), &rep); err != nil {
		r.fail("biome did not report (exit status " + itoa(out.ExitCode) + "):\n" + firstLines(out.Stderr+"\n"+out.Stdout, 20))
		return
	}
	for _, dg := range rep.Diagnostics {
		is := Issue{Message: dg.Message, Rule: dg.Category}
		if is.Message == "" {
			is.Message = dg.Description
		}
		switch dg.Severity {
		case "error", "fatal":
			is.Severity = "error"
		case "warning", "warn":
			is.Severity = "warning"
		default:
			continue
		}
		switch p := dg.Location.Path.(type) {
		case string:
			is.File = p
		case map[string]any:
			is.File, _ = p["file"].(string)
		}
		if dg.Location.Start != nil {
			is.Line, is.Column = dg.Location.Start.Line, dg.Location.Start.Column
		}
		r.Issues = append(r.Issues, is)
	}
}
