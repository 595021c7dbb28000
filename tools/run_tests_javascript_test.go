package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools/verify"
)

// The JavaScript tests run the vitest, jest, eslint and biome pinned as the
// repository's root devDependencies (npm ci installs them) against
// projects made in the test.
//
// The sandbox shows commands only their root (and the system and
// toolchain directories), so a project cannot borrow the repository's
// node_modules through a symlink: each project gets a node_modules of its
// own holding the packages its package.json files name and what they need
// (as package-lock.json resolves them), hard links to the repository's
// files (no copy of the data), and lives under the repository's .cache so
// that the links stay on one file system. That is the layout the tools
// meet in real use: a project with its dependencies installed in it.

// jsTools are the executables the cases need in node_modules/.bin.
var jsTools = []string{"vitest", "jest", "eslint", "biome"}

// repoNodeModules returns the repository's node_modules, failing the test
// with what to do when the pinned tools are not installed.
func repoNodeModules(t *testing.T) (repo string) {
	t.Helper()
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(repo, "go.mod")); err != nil || !bytes.Contains(b, []byte("module github.com/autarch-dev/autarch\n")) {
		t.Fatalf("%s is not the repository root (%v)", repo, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is not installed: the JavaScript runners and linters need Node.js (%v)", err)
	}
	nm := filepath.Join(repo, "node_modules")
	for _, name := range jsTools {
		if _, err := os.Stat(filepath.Join(nm, ".bin", name)); err != nil {
			t.Fatalf("%s is missing: run `npm ci` at the repository root (it installs the pinned vitest, jest, eslint and @biomejs/biome): %v", filepath.Join(nm, ".bin", name), err)
		}
	}
	return repo
}

// jsRoot makes an empty project root under the repository's .cache,
// removed when the test ends.
func jsRoot(t *testing.T, repo string) string {
	t.Helper()
	base := filepath.Join(repo, ".cache", "verify-tests")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(base, "js-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("removing %s: %v", dir, err)
		}
	})
	return dir
}

// lockPackage is a package-lock.json "packages" entry.
type lockPackage struct {
	Dependencies         map[string]string `json:"dependencies"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
	PeerDependencies     map[string]string `json:"peerDependencies"`
	Optional             bool              `json:"optional"` // another platform's binary, say
}

// lockClosure returns the lockfile paths ("node_modules/vite",
// "node_modules/vite/node_modules/esbuild") of the named packages and of
// everything they need, resolved as Node does: in the requiring
// package's node_modules, then in its ancestors'.
func lockClosure(repo string, roots []string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(repo, "package-lock.json"))
	if err != nil {
		return nil, err
	}
	var lock struct {
		Packages map[string]lockPackage `json:"packages"`
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		return nil, fmt.Errorf("package-lock.json: %w", err)
	}
	resolve := func(from, dep string) (string, bool) {
		for p := from; ; {
			cand := path.Join(p, "node_modules", dep)
			if _, ok := lock.Packages[cand]; ok {
				return cand, true
			}
			if p == "" {
				return "", false
			}
			i := strings.LastIndex(p, "/node_modules/")
			if i < 0 {
				p = ""
			} else {
				p = p[:i]
			}
		}
	}
	seen := map[string]bool{}
	var todo []string
	for _, r := range roots {
		p, ok := resolve("", r)
		if !ok {
			return nil, fmt.Errorf("%s is not in package-lock.json: run `npm ci` at the repository root", r)
		}
		todo = append(todo, p)
	}
	for len(todo) > 0 {
		p := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[p] {
			continue
		}
		seen[p] = true
		m := lock.Packages[p]
		for _, deps := range []map[string]string{m.Dependencies, m.OptionalDependencies, m.PeerDependencies} {
			for d := range deps {
				if r, ok := resolve(p, d); ok { // optional and peer ones may be absent
					todo = append(todo, r)
				}
			}
		}
	}
	var out []string
	for _, p := range slices.Sorted(maps.Keys(seen)) {
		if _, err := os.Stat(filepath.Join(repo, filepath.FromSlash(p))); err != nil {
			if lock.Packages[p].Optional {
				continue // not for this platform: npm did not install it
			}
			return nil, fmt.Errorf("%s is in package-lock.json but not installed: run `npm ci` at the repository root (%w)", p, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// linkPackages gives a project root the repository's installed packages
// pkgs (lockfile paths) and their node_modules/.bin entries: hard links to
// the repository's files and the same symlinks. Nested node_modules are
// left to their own entries in pkgs.
func linkPackages(repo, root string, pkgs []string) error {
	for _, p := range pkgs {
		src := filepath.Join(repo, filepath.FromSlash(p))
		err := filepath.WalkDir(src, func(from string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "node_modules" && from != src {
				return fs.SkipDir
			}
			rel, err := filepath.Rel(repo, from)
			if err != nil {
				return err
			}
			to := filepath.Join(root, rel)
			switch {
			case d.IsDir():
				return os.MkdirAll(to, 0o755)
			case d.Type()&fs.ModeSymlink != 0:
				target, err := os.Readlink(from)
				if err != nil {
					return err
				}
				return os.Symlink(target, to)
			case d.Type().IsRegular():
				if err := os.Link(from, to); err != nil {
					return fmt.Errorf("hard-linking the repository's node_modules into a test project (both under the repository, so one file system): %w", err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	bins, err := os.ReadDir(filepath.Join(repo, "node_modules", ".bin"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(root, "node_modules", ".bin"), 0o755); err != nil {
		return err
	}
	for _, e := range bins {
		target, err := os.Readlink(filepath.Join(repo, "node_modules", ".bin", e.Name()))
		if err != nil {
			continue
		}
		at := path.Join("node_modules/.bin", filepath.ToSlash(target))
		if slices.ContainsFunc(pkgs, func(p string) bool { return strings.HasPrefix(at, p+"/") }) {
			if err := os.Symlink(target, filepath.Join(root, "node_modules", ".bin", e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// devDependencies are the packages the package.json files among files
// ask for.
func devDependencies(t *testing.T, files map[string]string) []string {
	t.Helper()
	var out []string
	for name, content := range files {
		if path.Base(name) != "package.json" {
			continue
		}
		var pkg struct {
			DevDependencies map[string]string `json:"devDependencies"`
		}
		if err := json.Unmarshal([]byte(content), &pkg); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for d := range pkg.DevDependencies {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// installFromRepo gives the project at root, in the directory nm, a
// node_modules with the repository's installed copies of the packages its
// package.json files name, and what they need.
func installFromRepo(t *testing.T, repo, root, nm string, files map[string]string) {
	t.Helper()
	pkgs, err := lockClosure(repo, devDependencies(t, files))
	if err != nil {
		t.Fatal(err)
	}
	if err := linkPackages(repo, filepath.Join(root, nm), pkgs); err != nil {
		t.Fatal(err)
	}
}

// hangs returns a case's check that the test that hung had started its
// child (marker file) and that the timeout killed it with the runner.
func hangs(arg string) func(t *testing.T, root string) {
	return func(t *testing.T, root string) {
		if _, err := os.Stat(filepath.Join(root, "started")); err != nil {
			t.Fatalf("the hanging test never started its child, so the kill is unproven: %v", err)
		}
		if err := reapSleepers("sleep\x00" + arg + "\x00"); err != nil {
			t.Fatalf("the timeout left the test's child running: %v", err)
		}
	}
}

const (
	vitestPkg = `{"name": "calc", "type": "module", "devDependencies": {"vitest": "3.2.7"}}`
	jestPkg   = `{"name": "calc", "devDependencies": {"jest": "30.5.2"}}`
	calcESM   = "export const inc = (x) => x + 1\n"
	// calcSuite's tests print a JSON-looking line: the report must not be
	// read from what the tests print.
	calcSuite = "describe('inc', () => {\n" +
		"  test('adds one', () => { console.log('{\"numFailedTests\": 0}'); expect(inc(1)).toBe(2) })\n" +
		"  test('is off', () => { expect(inc(1)).toBe(3) })\n" +
		"  test.skip('later', () => {})\n" +
		"  test.todo('someday')\n" +
		"})\n"
	vitestCalc   = "import { describe, test, expect } from 'vitest'\nimport { inc } from './calc.js'\n\n" + calcSuite
	jestCalc     = "const { inc } = require('./calc')\n\n" + calcSuite
	eslintConfig = "export default [{ files: ['**/*.js'], rules: { 'no-unused-vars': 'error', eqeqeq: 'warn', 'prefer-const': 'error' } }]\n"
	biomeConfig  = `{"linter": {"enabled": true, "rules": {"recommended": true}}}`
	lintMe       = "const unused = 1\n\nexport function f(x) {\n  if (x == 1) {\n    debugger\n    return 2\n  }\n  return 3\n}\n"
)

// hangTest is a test that starts a child process and never ends; the
// child's sleep argument identifies it.
func hangTest(imports, arg string) string {
	return imports + "\ntest('hangs', async () => {\n" +
		"  spawn('sleep', ['" + arg + "'], { stdio: 'ignore' })\n" +
		"  writeFileSync('started', '')\n" +
		"  await new Promise(() => {})\n" +
		"}, 1e9)\n"
}

func jsCases() []verifyCase {
	// sleep arguments no other test uses (shell's are 3000-7999).
	vitestSleep := fmt.Sprintf("86401.%d1", os.Getpid())
	jestSleep := fmt.Sprintf("86401.%d2", os.Getpid())
	return []verifyCase{
		{name: "vitest: counts, failure names, files and lines", tool: "run_tests", nodeModules: ".", files: map[string]string{
			"package.json": vitestPkg, "calc.js": calcESM, "calc.test.js": vitestCalc,
			"other.test.js": "import { test, expect } from 'vitest'\ntest('other', () => expect(1).toBe(1))\n"},
			args: map[string]any{}, want: map[string]any{"status": "fail", "passed": 2.0, "failed": 1.0, "skipped": 2.0},
			failures: []verify.TestFailure{{Name: "inc is off", File: "calc.test.js", Line: 6, Message: "expected 2 to be 3"}},
			contains: []string{`"runners":["vitest in ."]`, "Tests  1 failed | 2 passed | 1 skipped | 1 todo (5)"}},
		{name: "vitest: a name pattern narrows the run", tool: "run_tests", nodeModules: ".", files: map[string]string{
			"package.json": vitestPkg, "calc.js": calcESM, "calc.test.js": vitestCalc},
			args: map[string]any{"pattern": "adds one"}, want: map[string]any{"status": "pass", "passed": 1.0, "failed": 0.0}},
		{name: "vitest: a file pattern runs that file", tool: "run_tests", nodeModules: ".", files: map[string]string{
			"package.json": vitestPkg, "calc.js": calcESM, "calc.test.js": vitestCalc,
			"other.test.js": "import { test, expect } from 'vitest'\ntest('other', () => expect(1).toBe(1))\n"},
			args: map[string]any{"pattern": "other.test.js"}, want: map[string]any{"status": "pass", "passed": 1.0, "failed": 0.0, "skipped": 0.0}},
		{name: "vitest: path narrows to a directory", tool: "run_tests", nodeModules: ".", files: map[string]string{
			"package.json": vitestPkg, "calc.js": calcESM, "calc.test.js": vitestCalc,
			"lib/ok.test.js": "import { test, expect } from 'vitest'\ntest('ok', () => expect(1).toBe(1))\n"},
			args: map[string]any{"path": "lib"}, want: map[string]any{"status": "pass", "passed": 1.0, "failed": 0.0}},
		{name: "vitest: a test file that does not load", tool: "run_tests", nodeModules: ".", files: map[string]string{
			"package.json": vitestPkg, "broken.test.js": "import { test } from 'vitest'\nimport { nothing } from './missing.js'\ntest('x', () => nothing())\n"},
			args: map[string]any{}, want: map[string]any{"status": "fail", "failed": 1.0},
			failures: []verify.TestFailure{{Name: "broken.test.js", File: "broken.test.js", Message: "missing.js"}}},
		{name: "vitest: hoisted to an npm workspace's root", tool: "run_tests", nodeModules: ".", files: map[string]string{
			"package.json":              `{"name": "ws", "private": true, "workspaces": ["packages/*"]}`,
			"packages/app/package.json": vitestPkg, "packages/app/calc.js": calcESM, "packages/app/calc.test.js": vitestCalc},
			args: map[string]any{"path": "packages/app"}, want: map[string]any{"status": "fail", "passed": 1.0, "failed": 1.0},
			failures: []verify.TestFailure{{Name: "inc is off", File: "packages/app/calc.test.js", Line: 6}},
			contains: []string{`"runners":["vitest in packages/app"]`}},
		{name: "vitest: timeout kills the run and what it started", tool: "run_tests", nodeModules: ".", files: map[string]string{
			"package.json": vitestPkg,
			"hang.test.js": hangTest("import { test } from 'vitest'\nimport { spawn } from 'node:child_process'\nimport { writeFileSync } from 'node:fs'\n", vitestSleep)},
			args: map[string]any{"timeout": 4000.0}, want: map[string]any{"status": "error"}, contains: []string{"vitest timed out after 4s"},
			after: hangs(vitestSleep)},
		{name: "jest: counts, failure names, files and lines", tool: "run_tests", nodeModules: ".", files: map[string]string{
			"package.json": jestPkg, "calc.js": "exports.inc = (x) => x + 1\n", "calc.test.js": jestCalc},
			args: map[string]any{}, want: map[string]any{"status": "fail", "passed": 1.0, "failed": 1.0, "skipped": 2.0},
			failures: []verify.TestFailure{{Name: "inc is off", File: "calc.test.js", Line: 5, Message: "Expected: 3"}},
			contains: []string{`"runners":["jest in ."]`, "Tests:       1 failed, 1 skipped, 1 todo, 1 passed, 4 total"}},
		{name: "jest: a name pattern narrows the run", tool: "run_tests", nodeModules: ".", files: map[string]string{
			"package.json": jestPkg, "calc.js": "exports.inc = (x) => x + 1\n", "calc.test.js": jestCalc},
			args: map[string]any{"pattern": "adds one"}, want: map[string]any{"status": "pass", "passed": 1.0, "failed": 0.0}},
		{name: "jest: a test file that does not load", tool: "run_tests", nodeModules: ".", files: map[string]string{
			"package.json": jestPkg, "broken.test.js": "const { nothing } = require('./missing')\ntest('x', () => nothing())\n"},
			args: map[string]any{}, want: map[string]any{"status": "fail", "failed": 1.0},
			failures: []verify.TestFailure{{Name: "broken.test.js", File: "broken.test.js", Message: "Cannot find module './missing'"}}},
		{name: "jest: timeout kills the run and what it started", tool: "run_tests", nodeModules: ".", files: map[string]string{
			"package.json": jestPkg,
			"hang.test.js": hangTest("const { spawn } = require('node:child_process')\nconst { writeFileSync } = require('node:fs')\n", jestSleep)},
			args: map[string]any{"timeout": 4000.0}, want: map[string]any{"status": "error"}, contains: []string{"jest timed out after 4s"},
			after: hangs(jestSleep)},
		{name: "jest listed but not installed", tool: "run_tests", files: map[string]string{
			"package.json": jestPkg, "calc.test.js": jestCalc},
			args: map[string]any{}, want: map[string]any{"status": "error"},
			contains: []string{"jest is not installed here: jest is in package.json or configured, but not in node_modules: run npm install (or npm ci) in the project root"}},
		{name: "eslint: issues with files, lines, severities and rules", tool: "run_lint", nodeModules: ".", files: map[string]string{
			"package.json": `{"name": "l", "type": "module", "devDependencies": {"eslint": "10.15.0"}}`, "eslint.config.js": eslintConfig,
			"src/a.js": lintMe, "src/ok.js": "export const ok = 1\n"},
			args: map[string]any{}, want: map[string]any{"status": "fail", "errorCount": 1.0, "warningCount": 1.0},
			issues: []verify.Issue{
				{File: "src/a.js", Line: 1, Severity: "error", Rule: "no-unused-vars", Message: "'unused' is assigned a value but never used"},
				{File: "src/a.js", Line: 4, Severity: "warning", Rule: "eqeqeq", Message: "Expected '==='"}},
			contains: []string{`"linters":["eslint in ."]`}},
		{name: "eslint: a syntax error", tool: "run_lint", nodeModules: ".", files: map[string]string{
			"package.json": `{"name": "l", "type": "module", "devDependencies": {"eslint": "10.15.0"}}`, "eslint.config.js": eslintConfig,
			"bad.js": "export const x = 1\nexport function (\n"},
			args: map[string]any{}, want: map[string]any{"status": "fail", "errorCount": 1.0},
			issues: []verify.Issue{{File: "bad.js", Line: 2, Severity: "error", Rule: "syntax-error", Message: "Parsing error"}}},
		{name: "eslint: path narrows to a file", tool: "run_lint", nodeModules: ".", files: map[string]string{
			"package.json": `{"name": "l", "type": "module", "devDependencies": {"eslint": "10.15.0"}}`, "eslint.config.js": eslintConfig,
			"src/a.js": lintMe, "src/ok.js": "export const ok = 1\n"},
			args: map[string]any{"path": "src/ok.js"}, want: map[string]any{"status": "pass", "errorCount": 0.0, "warningCount": 0.0}},
		{name: "eslint: a broken configuration is an error, not a pass", tool: "run_lint", nodeModules: ".", files: map[string]string{
			"package.json":     `{"name": "l", "type": "module", "devDependencies": {"eslint": "10.15.0"}}`,
			"eslint.config.js": "export default [{ rules: { 'no-such-rule': 'error' } }]\n", "a.js": "export const a = 1\n"},
			args: map[string]any{}, want: map[string]any{"status": "error"}, contains: []string{"no-such-rule"}},
		{name: "biome: issues with files, lines, severities and rules", tool: "run_lint", nodeModules: ".", files: map[string]string{
			"package.json": `{"name": "l", "devDependencies": {"@biomejs/biome": "2.6.8"}}`, "biome.json": biomeConfig,
			"src/a.js": lintMe},
			args: map[string]any{}, want: map[string]any{"status": "fail", "errorCount": 2.0, "warningCount": 1.0},
			issues: []verify.Issue{
				{File: "src/a.js", Line: 1, Severity: "warning", Rule: "lint/correctness/noUnusedVariables", Message: "unused"},
				{File: "src/a.js", Line: 4, Severity: "error", Rule: "lint/suspicious/noDoubleEquals", Message: "=="},
				{File: "src/a.js", Line: 5, Severity: "error", Rule: "lint/suspicious/noDebugger", Message: "debugger"}},
			contains: []string{`"linters":["biome in ."]`}},
		{name: "biome: more than its default 20 diagnostics", tool: "run_lint", nodeModules: ".", files: map[string]string{
			"package.json": `{"name": "l", "devDependencies": {"@biomejs/biome": "2.6.8"}}`, "biome.json": biomeConfig,
			"many.js": strings.Repeat("debugger\n", 30)},
			args: map[string]any{}, want: map[string]any{"status": "fail", "errorCount": 30.0},
			issues: []verify.Issue{{File: "many.js", Line: 30, Severity: "error", Rule: "lint/suspicious/noDebugger"}}},
		{name: "eslint and biome in one project", tool: "run_lint", nodeModules: ".", files: map[string]string{
			"package.json":     `{"name": "l", "type": "module", "devDependencies": {"eslint": "10.15.0", "@biomejs/biome": "2.6.8"}}`,
			"eslint.config.js": eslintConfig, "biome.json": biomeConfig, "a.js": "export const ok = 1\n"},
			args: map[string]any{}, want: map[string]any{"status": "pass", "errorCount": 0.0, "warningCount": 0.0},
			contains: []string{`"linters":["eslint in .","biome in ."]`}},
	}
}

func TestRunTestsAndLintJavaScript(t *testing.T) {
	repo := repoNodeModules(t)
	for _, tc := range jsCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := jsRoot(t, repo)
			if tc.nodeModules != "" {
				installFromRepo(t, repo, dir, tc.nodeModules, tc.files)
			}
			writeFiles(t, dir, tc.files)
			h := newHarness(t, "pulsing", SessionConfig{Root: dir, StateDir: t.TempDir()})
			checkVerifyResult(t, tc, h.call(tc.tool, tc.args))
			if tc.after != nil {
				tc.after(t, dir)
			}
		})
	}
}

// TestRunLintFixJavaScript: eslint --fix and biome --write change the
// files, and fixedCount counts what went away.
func TestRunLintFixJavaScript(t *testing.T) {
	repo := repoNodeModules(t)
	tests := []struct {
		name         string
		files        map[string]string
		want         map[string]any // the result after fixing
		file, before string
		after        string
	}{
		{name: "eslint", files: map[string]string{
			"package.json": `{"name": "l", "type": "module", "devDependencies": {"eslint": "10.15.0"}}`, "eslint.config.js": eslintConfig,
			"a.js": "let n = 1\nexport const m = n == 1\n"},
			want: map[string]any{"status": "pass", "fixedCount": 1.0, "errorCount": 0.0, "warningCount": 1.0}, file: "a.js", before: "let n", after: "const n"},
		{name: "biome", files: map[string]string{
			"package.json": `{"name": "l", "devDependencies": {"@biomejs/biome": "2.6.8"}}`, "biome.json": biomeConfig,
			"a.js": "let n = 1\nexport const m = n + 1\ndebugger\n"},
			want: map[string]any{"status": "fail", "fixedCount": 1.0, "errorCount": 1.0, "warningCount": 0.0}, file: "a.js", before: "let n", after: "const n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := jsRoot(t, repo)
			installFromRepo(t, repo, dir, ".", tt.files)
			writeFiles(t, dir, tt.files)
			h := newHarness(t, "pulsing", SessionConfig{Root: dir})
			res := h.call("run_lint", map[string]any{"fix": true})
			checkVerifyResult(t, verifyCase{want: tt.want}, res)
			b, err := os.ReadFile(filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), tt.before) || !strings.Contains(string(b), tt.after) {
				t.Errorf("%s was not fixed:\n%s", tt.file, b)
			}
		})
	}
}

// TestQualityGatesJavaScript: the gates at completion run the tests
// related to the changed files (vitest related, jest --findRelatedTests)
// and lint the changed files, for real; a changed file no test imports
// passes instead of failing for want of tests.
func TestQualityGatesJavaScript(t *testing.T) {
	repo := repoNodeModules(t)
	lint := `{"name": "l", "type": "module", "devDependencies": {"eslint": "10.15.0", "RUNNER": "VERSION"}}`
	tests := []struct {
		name, runner, version, changed string
		files                          map[string]string
		failed                         bool
		failures                       []string // names of the reports' failures and issues
	}{
		{name: "vitest: a changed module's tests", runner: "vitest", version: "3.2.7", changed: "calc.js", failed: true,
			files:    map[string]string{"calc.js": calcESM + "const dead = 1\n", "calc.test.js": vitestCalc, "other.test.js": "import { test, expect } from 'vitest'\ntest('other', () => expect(1).toBe(2))\n"},
			failures: []string{"vitest inc is off", "eslint no-unused-vars"}},
		{name: "vitest: a module no test imports", runner: "vitest", version: "3.2.7", changed: "lonely.js",
			files: map[string]string{"calc.js": calcESM, "calc.test.js": vitestCalc, "lonely.js": "export const l = 1\n"}},
		{name: "jest: a changed module's tests", runner: "jest", version: "30.5.2", changed: "calc.js", failed: true,
			files:    map[string]string{"calc.js": "exports.inc = (x) => x + 1\n", "calc.test.js": jestCalc, "other.test.js": "test('other', () => expect(1).toBe(2))\n"},
			failures: []string{"jest inc is off"}},
		{name: "jest: a module no test imports", runner: "jest", version: "30.5.2", changed: "lonely.js",
			files: map[string]string{"calc.js": "exports.inc = (x) => x + 1\n", "calc.test.js": jestCalc, "lonely.js": "exports.l = 1\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := jsRoot(t, repo)
			tt.files["package.json"] = strings.NewReplacer("RUNNER", tt.runner, "VERSION", tt.version).Replace(lint)
			if tt.runner == "jest" {
				tt.files["package.json"] = strings.Replace(tt.files["package.json"], `"type": "module", `, "", 1)
				tt.files["eslint.config.js"] = "module.exports = [{ rules: { 'no-unused-vars': 'error' } }]\n"
			} else {
				tt.files["eslint.config.js"] = "export default [{ rules: { 'no-unused-vars': 'error' } }]\n"
			}
			installFromRepo(t, repo, dir, ".", tt.files)
			writeFiles(t, dir, tt.files)
			h := newHarness(t, "pulsing", SessionConfig{Root: dir})
			run := h.s.QualityGates(t.Context(), verify.Gates{}, []string{tt.changed})
			var got []string
			for _, r := range run.Reports {
				if r.Status == verify.StatusError {
					t.Errorf("%s could not run: %s\n%s", r.Check, r.Error, r.Output)
				}
				for _, f := range r.Failures {
					got = append(got, r.Check+" "+f.Name)
				}
				for _, i := range r.Issues {
					got = append(got, r.Check+" "+i.Rule)
				}
			}
			if run.Failed() != tt.failed || !slices.Equal(got, tt.failures) {
				t.Errorf("gates failed = %v with %q, want %v with %q (other.test.js fails but is not related)\n%+v", run.Failed(), got, tt.failed, tt.failures, run)
			}
			if !slices.ContainsFunc(run.Reports, func(r verify.Report) bool { return r.Check == tt.runner && strings.Contains(r.Command, tt.changed) }) {
				t.Errorf("no %s run for %s: %+v", tt.runner, tt.changed, run.Reports)
			}
		})
	}
}
