package verify

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Check is one detected runner, linter or build check of a project.
type Check struct {
	// Name names the tool ("go test", "pytest", "eslint", …).
	Name string
	Kind Kind
	// Dir is the project directory the command runs in, a slash path
	// relative to the root ("." is the root).
	Dir string
	// Missing, when set, says that the tool is not installed and how to
	// install it: the check cannot run.
	Missing string

	root    string // the detector's root, to make reported paths relative to it
	goTool  bool   // the go command alone (GoCommand)
	command func(t Target) string
	parse   func(r *Report, out Output)
}

// Target narrows a check's run.
type Target struct {
	// Paths are files or directories relative to the check's Dir; empty
	// means the whole project.
	Paths []string
	// Packages, for Go, are exact package patterns ("./internal/x");
	// they win over Paths.
	Packages []string
	// Pattern selects tests (a name pattern, or a test file pattern
	// where the runner selects by file).
	Pattern string
	// Fix asks a linter to fix what it can.
	Fix bool
	// Related runs the tests related to Paths (source files) instead of
	// the tests in them (vitest related, jest --findRelatedTests).
	Related bool
}

// Command is the bash command line the check runs for t.
func (c Check) Command(t Target) string { return c.command(t) }

// LookPath finds an executable (exec.LookPath; tests replace it).
type LookPath func(name string) (string, error)

// Detector finds the checks of the projects under a root.
type Detector struct {
	// Root is the absolute project root (a workspace or a worktree).
	Root string
	// LookPath finds tools; nil is exec.LookPath.
	LookPath LookPath
}

func (d Detector) look(name string) bool {
	lp := d.LookPath
	if lp == nil {
		lp = exec.LookPath
	}
	_, err := lp(name)
	return err == nil
}

// Checks returns the checks of kind k that apply to dir (a slash path
// relative to the root, "" or "." for the root): those of the nearest
// enclosing project, or, when dir encloses projects but is none itself,
// those of the projects up to two levels below it.
func (d Detector) Checks(dir string, k Kind) []Check {
	var out []Check
	for _, p := range d.Projects(dir) {
		for _, c := range d.projectChecks(p) {
			if c.Kind == k {
				out = append(out, c)
			}
		}
	}
	return out
}

// markers are the files that make a directory a project.
var markers = []string{"go.mod", "package.json", "Cargo.toml", "pyproject.toml", "pytest.ini", "setup.py", "setup.cfg", "tox.ini"}

func (d Detector) isProject(dir string) bool {
	for _, m := range markers {
		if d.exists(path.Join(dir, m)) {
			return true
		}
	}
	return false
}

func (d Detector) exists(rel string) bool {
	_, err := os.Stat(filepath.Join(d.Root, filepath.FromSlash(rel)))
	return err == nil
}

func (d Detector) read(rel string) string {
	b, err := os.ReadFile(filepath.Join(d.Root, filepath.FromSlash(rel)))
	if err != nil || len(b) > 1<<20 {
		return ""
	}
	return string(b)
}

// Projects lists the project directories that dir belongs to or holds.
func (d Detector) Projects(dir string) []string {
	dir = path.Clean("./" + filepath.ToSlash(dir))
	for p := dir; ; p = path.Dir(p) {
		if d.isProject(p) {
			return []string{p}
		}
		if p == "." || p == "/" {
			break
		}
	}
	var out []string
	var walk func(p string, depth int)
	walk = func(p string, depth int) {
		entries, err := os.ReadDir(filepath.Join(d.Root, filepath.FromSlash(p)))
		if err != nil {
			return
		}
		for _, e := range entries {
			name := e.Name()
			if !e.IsDir() || strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || name == "target" || name == "testdata" {
				continue
			}
			sub := path.Join(p, name)
			if d.isProject(sub) {
				out = append(out, sub)
			} else if depth < 2 {
				walk(sub, depth+1)
			}
		}
	}
	walk(dir, 1)
	return out
}

// ProjectOf is the nearest project directory enclosing a file or
// directory ("" when none).
func (d Detector) ProjectOf(rel string) string {
	for p := path.Clean("./" + rel); ; p = path.Dir(p) {
		if d.isProject(p) {
			return p
		}
		if p == "." || p == "/" {
			return ""
		}
	}
}

// projectChecks are every check of one project directory.
func (d Detector) projectChecks(dir string) []Check {
	var out []Check
	if d.exists(path.Join(dir, "go.mod")) {
		out = append(out, d.goChecks(dir)...)
	}
	if d.exists(path.Join(dir, "package.json")) {
		out = append(out, d.nodeChecks(dir)...)
	}
	if d.exists(path.Join(dir, "Cargo.toml")) {
		out = append(out, d.rustChecks(dir)...)
	}
	if d.pythonProject(dir) {
		out = append(out, d.pythonChecks(dir)...)
	}
	for i := range out {
		out[i].root = d.Root
	}
	return out
}

// missing is the Missing text of a tool that is not installed.
func missing(tool, install string) string {
	return fmt.Sprintf("%s is not installed here: %s", tool, install)
}

// quote quotes words for bash.
func quote(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w != "" && strings.IndexFunc(w, func(r rune) bool {
			return !(r == '/' || r == '.' || r == '_' || r == '-' || r == ':' || r == '=' || r == '@' || r == '+' ||
				r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) < 0 {
			out[i] = w
			continue
		}
		out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// withReport runs a command that writes a report to a temporary file and
// prints that file after reportMarker on stdout, keeping the exit status.
func withReport(command string) string {
	return `f=$(mktemp) && { ` + command + `; }; s=$?; printf '\n` + reportMarker + `\n'; cat "$f" 2>/dev/null; rm -f "$f"; exit $s`
}

// reportMarker separates a tool's own stdout from the report file.
const reportMarker = "--- autarch verify report ---"

// splitReport returns stdout before the marker and the report after it.
func splitReport(stdout string) (text, report string) {
	i := strings.LastIndex(stdout, "\n"+reportMarker+"\n")
	if i < 0 {
		return stdout, ""
	}
	return stdout[:i], stdout[i+len(reportMarker)+2:]
}

// hasAny reports whether any of names exists in dir.
func (d Detector) hasAny(dir string, names ...string) bool {
	return slices.ContainsFunc(names, func(n string) bool { return d.exists(path.Join(dir, n)) })
}
