package verify

import (
	"encoding/json"
	"encoding/xml"
	"path"
	"strings"
)

// pythonProject reports whether dir holds a Python project pytest runs.
func (d Detector) pythonProject(dir string) bool {
	if d.hasAny(dir, "pytest.ini", "setup.py", "setup.cfg", "tox.ini") {
		return true
	}
	return d.exists(path.Join(dir, "pyproject.toml"))
}

func (d Detector) pythonChecks(dir string) []Check {
	var out []Check
	test := Check{Name: "pytest", Kind: Test, Dir: dir, parse: parsePytest}
	runner := []string{"pytest"}
	switch {
	case d.look("pytest"):
	case d.look("python3"):
		runner = []string{"python3", "-m", "pytest"}
	default:
		test.Missing = missing("pytest", "install Python 3 and pytest (pip install pytest, or apt-get install python3-pytest)")
	}
	test.command = func(t Target) string {
		args := append(append([]string{}, runner...), "-q", "-p", "no:cacheprovider", "--junitxml=$f")
		var sel []string
		for _, p := range t.Paths {
			sel = append(sel, p)
		}
		if t.Pattern != "" {
			if strings.HasSuffix(t.Pattern, ".py") || strings.Contains(t.Pattern, "/") {
				sel = append(sel, t.Pattern)
			} else {
				args = append(args, "-k", t.Pattern)
			}
		}
		return withReport(strings.Replace(quote(append(args, sel...)), "'--junitxml=$f'", `--junitxml="$f"`, 1))
	}
	out = append(out, test)
	pyproject := d.read(path.Join(dir, "pyproject.toml"))
	configured := d.hasAny(dir, "ruff.toml", ".ruff.toml") || strings.Contains(pyproject, "[tool.ruff")
	if configured || d.look("ruff") {
		c := Check{Name: "ruff", Kind: Lint, Dir: dir, parse: parseRuff, command: func(t Target) string {
			args := []string{"ruff", "check", "--output-format=json", "--no-cache"}
			if t.Fix {
				args = append(args, "--fix")
			}
			return quote(append(args, t.Paths...))
		}}
		if !d.look("ruff") {
			c.Missing = missing("ruff", "it is configured but not on PATH; install it (pip install ruff)")
		}
		out = append(out, c)
	}
	return out
}

// junit is the part of a JUnit XML report pytest writes that we read.
type junit struct {
	Suites []junitSuite `xml:"testsuite"`
	junitSuite
}

type junitSuite struct {
	Cases []struct {
		Class   string `xml:"classname,attr"`
		Name    string `xml:"name,attr"`
		File    string `xml:"file,attr"`
		Line    int    `xml:"line,attr"`
		Failure *struct {
			Message string `xml:"message,attr"`
			Text    string `xml:",chardata"`
		} `xml:"failure"`
		Error *struct {
			Message string `xml:"message,attr"`
			Text    string `xml:",chardata"`
		} `xml:"error"`
		Skipped *struct{} `xml:"skipped"`
	} `xml:"testcase"`
}

// parsePytest reads pytest's JUnit XML report. Exit 5 (no tests
// collected) passes with zero counts; 2-4 (interrupted, internal or usage
// error) without a report are errors.
func parsePytest(r *Report, out Output) {
	text, report := splitReport(out.Stdout)
	if strings.Contains(out.Stderr+text, "No module named pytest") {
		r.fail(missing("pytest", "install it (pip install pytest, or apt-get install python3-pytest)"))
		return
	}
	var j junit
	if strings.TrimSpace(report) == "" || xml.Unmarshal([]byte(report), &j) != nil {
		if out.ExitCode == 5 {
			return
		}
		r.fail("pytest wrote no report (exit status " + itoa(out.ExitCode) + "):\n" + firstLines(out.Stderr+"\n"+text, 30))
		return
	}
	suites := append(j.Suites, j.junitSuite)
	for _, s := range suites {
		for _, c := range s.Cases {
			name := c.Name
			if c.Class != "" {
				name = c.Class + "::" + c.Name
			}
			switch {
			case c.Failure != nil:
				r.Failed++
				r.Failures = append(r.Failures, TestFailure{Name: name, Message: clip(strings.TrimSpace(c.Failure.Message+"\n"+c.Failure.Text), maxMessage), File: c.File, Line: c.Line})
			case c.Error != nil:
				r.Failed++
				r.Failures = append(r.Failures, TestFailure{Name: name, Message: clip(strings.TrimSpace(c.Error.Message+"\n"+c.Error.Text), maxMessage), File: c.File, Line: c.Line})
			case c.Skipped != nil:
				r.Skipped++
			default:
				r.Passed++
			}
		}
	}
	if out.ExitCode != 0 && out.ExitCode != 1 && out.ExitCode != 5 && r.Failed == 0 {
		r.fail("pytest failed (exit status " + itoa(out.ExitCode) + "):\n" + firstLines(out.Stderr+"\n"+text, 30))
	}
}

// parseRuff reads ruff check --output-format=json.
func parseRuff(r *Report, out Output) {
	var findings []struct {
		Code     *string `json:"code"`
		Message  string  `json:"message"`
		Filename string  `json:"filename"`
		Location struct {
			Row    int `json:"row"`
			Column int `json:"column"`
		} `json:"location"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out.Stdout)), &findings); err != nil {
		r.fail("ruff's JSON output could not be read: " + firstLines(out.Stderr+"\n"+out.Stdout, 20))
		return
	}
	for _, f := range findings {
		rule := "syntax-error"
		if f.Code != nil {
			rule = *f.Code
		}
		r.Issues = append(r.Issues, Issue{File: f.Filename, Line: f.Location.Row, Column: f.Location.Column, Severity: "error", Message: f.Message, Rule: rule})
	}
}
