package tools

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools/verify"
)

// verifyCase is a real project made in a temp dir, a run_tests or
// run_lint call in it, and what the structured result must say.
type verifyCase struct {
	name  string
	need  string // a command that must be installed, else the case is skipped
	files map[string]string
	tool  string
	args  map[string]any
	// want are fields of the result (JSON values compared as decoded).
	want map[string]any
	// names must each appear among failures[].name or issues[].rule+file.
	names []string
	// contains are substrings of the whole result.
	contains []string
	// failures and issues must each match one of the result's: Name,
	// File and Severity exactly, Line when set, Message as a substring.
	failures []verify.TestFailure
	issues   []verify.Issue
	// nodeModules, for a JavaScript project, is the directory (relative
	// to the root) that gets a node_modules holding the repository's
	// pinned devDependencies; "" for none.
	nodeModules string
	// after checks the project once the call returned.
	after func(t *testing.T, root string)
}

const goMod = "module example.com/m\n\ngo 1.22\n"

var verifyCases = []verifyCase{
	{name: "go: counts and failure names", need: "go", tool: "run_tests", files: map[string]string{
		"go.mod": goMod, "a.go": "package m\n\nfunc Inc(x int) int { return x + 1 }\n",
		"a_test.go": "package m\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) {}\nfunc TestSkip(t *testing.T) { t.Skip(\"later\") }\n" +
			"func TestBad(t *testing.T) { t.Errorf(\"Inc(1) = %d, want 3\", Inc(1)) }\n" +
			"func TestSub(t *testing.T) { t.Run(\"one\", func(t *testing.T) {}); t.Run(\"two\", func(t *testing.T) { t.Fatal(\"two broke\") }) }\n"},
		args: map[string]any{}, want: map[string]any{"status": "fail", "passed": 2.0, "failed": 2.0, "skipped": 1.0},
		names: []string{"example.com/m.TestBad", "example.com/m.TestSub/two"}, contains: []string{"Inc(1) = 2, want 3", "two broke"}},
	{name: "go: pattern narrows the run", need: "go", tool: "run_tests", files: map[string]string{
		"go.mod": goMod, "a_test.go": "package m\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) {}\nfunc TestBad(t *testing.T) { t.Fatal(\"x\") }\n"},
		args: map[string]any{"pattern": "TestOK"}, want: map[string]any{"status": "pass", "passed": 1.0, "failed": 0.0}},
	{name: "go: a package that does not compile", need: "go", tool: "run_tests", files: map[string]string{
		"go.mod": goMod, "ok/ok_test.go": "package ok\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) {}\n",
		"broken/b.go": "package broken\n\nfunc B() int { return missing }\n"},
		args: map[string]any{}, want: map[string]any{"status": "fail", "passed": 1.0}, names: []string{"build failed: example.com/m/broken"},
		contains: []string{"undefined: missing"}},
	{name: "go: path narrows to a directory", need: "go", tool: "run_tests", files: map[string]string{
		"go.mod": goMod, "ok/ok_test.go": "package ok\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) {}\n",
		"broken/b.go": "package broken\n\nfunc B() int { return missing }\n"},
		args: map[string]any{"path": "ok"}, want: map[string]any{"status": "pass", "passed": 1.0}},
	{name: "go: timeout kills the run", need: "go", tool: "run_tests", files: map[string]string{
		"go.mod": goMod, "a_test.go": "package m\n\nimport (\"testing\"; \"time\")\n\nfunc TestSlow(t *testing.T) { time.Sleep(time.Hour) }\n"},
		args: map[string]any{"timeout": 3000.0}, want: map[string]any{"status": "error"}, contains: []string{"timed out after 3s"}},
	{name: "go: vet findings", need: "go", tool: "run_lint", files: map[string]string{
		"go.mod": goMod, "a.go": "package m\n\nimport \"fmt\"\n\nfunc F() { fmt.Printf(\"%d\\n\", \"x\") }\n"},
		args: map[string]any{}, want: map[string]any{"status": "fail", "errorCount": 1.0, "warningCount": 0.0}, names: []string{"go vet a.go"},
		contains: []string{`"line":5`, "wrong type string"}},
	{name: "go: clean lint", need: "go", tool: "run_lint", files: map[string]string{"go.mod": goMod, "a.go": "package m\n\nfunc F() {}\n"},
		args: map[string]any{}, want: map[string]any{"status": "pass", "errorCount": 0.0}},
	{name: "go: golangci-lint configured but missing", tool: "run_lint", files: map[string]string{
		"go.mod": goMod, "a.go": "package m\n", ".golangci.yml": "linters: {}\n"},
		args: map[string]any{}, want: map[string]any{"status": "error"}, contains: []string{"golangci-lint is not installed here"}},
	{name: "pytest: counts, names and messages", need: "pytest", tool: "run_tests", files: map[string]string{
		"pytest.ini": "[pytest]\n", "calc.py": "def inc(x):\n    return x + 1\n",
		"test_calc.py": "import pytest\nfrom calc import inc\n\ndef test_ok():\n    assert inc(1) == 2\n\ndef test_bad():\n    assert inc(1) == 3\n\n" +
			"@pytest.mark.skip(reason='later')\ndef test_skip():\n    pass\n"},
		args: map[string]any{}, want: map[string]any{"status": "fail", "passed": 1.0, "failed": 1.0, "skipped": 1.0},
		names: []string{"test_calc::test_bad"}, contains: []string{"assert 2 == 3"}},
	{name: "pytest: -k pattern", need: "pytest", tool: "run_tests", files: map[string]string{
		"pyproject.toml": "[project]\nname = 'x'\n", "test_a.py": "def test_ok():\n    pass\n\ndef test_bad():\n    assert False\n"},
		args: map[string]any{"pattern": "test_ok"}, want: map[string]any{"status": "pass", "passed": 1.0, "failed": 0.0}},
	{name: "pytest: a module that does not import", need: "pytest", tool: "run_tests", files: map[string]string{
		"setup.py": "", "test_b.py": "import nosuchmodule\n\ndef test_x():\n    pass\n"},
		args: map[string]any{}, want: map[string]any{"status": "fail"}, contains: []string{"nosuchmodule"}},
	{name: "cargo: counts and failure names", need: "cargo", tool: "run_tests", files: map[string]string{
		"Cargo.toml": "[package]\nname = \"m\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/lib.rs": "pub fn inc(x: i32) -> i32 { x + 1 }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn ok() { assert_eq!(inc(1), 2); }\n" +
			"    #[test]\n    fn bad() { assert_eq!(inc(1), 3, \"inc is off\"); }\n    #[test]\n    #[ignore]\n    fn later() {}\n}\n"},
		args: map[string]any{}, want: map[string]any{"status": "fail", "passed": 1.0, "failed": 1.0, "skipped": 1.0},
		names: []string{"tests::bad"}, contains: []string{"inc is off"}},
	{name: "cargo: a crate that does not compile", need: "cargo", tool: "run_tests", files: map[string]string{
		"Cargo.toml": "[package]\nname = \"m\"\nversion = \"0.1.0\"\nedition = \"2021\"\n", "src/lib.rs": "pub fn f() -> i32 { missing }\n"},
		args: map[string]any{}, want: map[string]any{"status": "fail"}, names: []string{"build failed: src/lib.rs"}, contains: []string{"cannot find value `missing`"}},
	{name: "clippy: issues with rules", need: "cargo-clippy", tool: "run_lint", files: map[string]string{
		"Cargo.toml": "[package]\nname = \"m\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/lib.rs": "pub fn f(x: &Vec<i32>) -> usize { x.len() }\n"},
		args: map[string]any{}, want: map[string]any{"status": "pass", "errorCount": 0.0, "warningCount": 1.0}, names: []string{"clippy::ptr_arg src/lib.rs"}},
	{name: "vitest listed but not installed", need: "node", tool: "run_tests", files: map[string]string{
		"package.json": `{"devDependencies": {"vitest": "^1.0.0"}}`},
		args: map[string]any{}, want: map[string]any{"status": "error"}, contains: []string{"vitest is not installed here: vitest is in package.json or configured, but not in node_modules: run npm install (or npm ci) in the project root"}},
	{name: "no runner detected", tool: "run_tests", files: map[string]string{"README.md": "hi\n"},
		args: map[string]any{}, want: map[string]any{"status": "error"}, contains: []string{"no test runner detected"}},
	{name: "no linter detected", tool: "run_lint", files: map[string]string{"README.md": "hi\n"},
		args: map[string]any{}, want: map[string]any{"status": "error"}, contains: []string{"no linter detected"}},
}

func TestRunTestsAndLint(t *testing.T) {
	for _, tc := range verifyCases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.need != "" {
				if _, err := exec.LookPath(tc.need); err != nil {
					t.Skipf("%s is not installed", tc.need)
				}
			}
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, tc.files)
			h := newHarness(t, "pulsing", SessionConfig{Root: dir, StateDir: t.TempDir()})
			checkVerifyResult(t, tc, h.call(tc.tool, tc.args))
		})
	}
}

// checkVerifyResult compares a run_tests or run_lint result with what a
// case wants.
func checkVerifyResult(t *testing.T, tc verifyCase, res Result) {
	t.Helper()
	var got map[string]any
	if err := json.Unmarshal([]byte(res.Output), &got); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, res.Output)
	}
	for k, v := range tc.want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v\n%s", k, got[k], v, res.Output)
		}
	}
	if res.Failed != (got["status"] != "pass") {
		t.Errorf("Failed = %v with status %v", res.Failed, got["status"])
	}
	var names []string
	for _, key := range []string{"failures", "issues"} {
		list, _ := got[key].([]any)
		for _, x := range list {
			m := x.(map[string]any)
			if n, ok := m["name"].(string); ok {
				names = append(names, n)
			} else {
				names = append(names, m["rule"].(string)+" "+m["file"].(string))
			}
		}
	}
	for _, n := range tc.names {
		if !slices.Contains(names, n) {
			t.Errorf("%q not among %q\n%s", n, names, res.Output)
		}
	}
	for _, c := range tc.contains {
		if !strings.Contains(res.Output, c) {
			t.Errorf("result lacks %q:\n%s", c, res.Output)
		}
	}
	var typed struct {
		Failures []verify.TestFailure `json:"failures"`
		Issues   []verify.Issue       `json:"issues"`
	}
	if err := json.Unmarshal([]byte(res.Output), &typed); err != nil {
		t.Fatalf("result's failures or issues do not decode: %v\n%s", err, res.Output)
	}
	for _, w := range tc.failures {
		if !slices.ContainsFunc(typed.Failures, func(f verify.TestFailure) bool {
			return f.Name == w.Name && f.File == w.File && (w.Line == 0 || f.Line == w.Line) && strings.Contains(f.Message, w.Message)
		}) {
			t.Errorf("no failure like %+v among %+v", w, typed.Failures)
		}
	}
	for _, w := range tc.issues {
		if !slices.ContainsFunc(typed.Issues, func(i verify.Issue) bool {
			return i.File == w.File && i.Line == w.Line && i.Severity == w.Severity && i.Rule == w.Rule && strings.Contains(i.Message, w.Message)
		}) {
			t.Errorf("no issue like %+v among %+v", w, typed.Issues)
		}
	}
}

func TestRunLintFix(t *testing.T) {
	if _, err := exec.LookPath("cargo-clippy"); err != nil {
		t.Skip("clippy is not installed")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"Cargo.toml": "[package]\nname = \"m\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/lib.rs": "pub fn f(x: i32) -> i32 { return x + 1; }\n"})
	h := newHarness(t, "pulsing", SessionConfig{Root: dir})
	res := h.call("run_lint", map[string]any{"fix": true})
	if !strings.Contains(res.Output, `"fixedCount":1`) || !strings.Contains(res.Output, `"warningCount":0`) {
		t.Errorf("fix result: %s", res.Output)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "src", "lib.rs")); strings.Contains(string(b), "return") {
		t.Errorf("clippy --fix did not fix the file:\n%s", b)
	}
}
