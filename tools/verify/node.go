package verify

import (
	"encoding/json"
	"path"
	"strings"
)

// nodeBin finds a package's executable in node_modules/.bin of dir or an
// ancestor up to the root (npm workspaces hoist them); "" when absent.
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
	tool := func(name, pkgName string, kind Kind, parse func(*Report, Output), args func(bin string, t Target) []string) Check {
		c := Check{Name: name, Kind: kind, Dir: dir, parse: parse}
		bin := d.nodeBin(dir, name)
		switch {
		case !d.look("node"):
			c.Missing = missing("node", "install Node.js")
		case bin == "":
			c.Missing = missing(name, pkgName+" is listed in package.json but not installed: run npm install (preflight installs dependencies)")
		}
		c.command = func(t Target) string { return quote(args(bin, t)) }
		return c
	}
	var out []Check
	switch {
	case has("vitest"):
		out = append(out, tool("vitest", "vitest", Test, parseJestJSON, func(bin string, t Target) []string {
			args := []string{bin, "run", "--reporter=json"}
			if t.Related {
				args = []string{bin, "related", "--run", "--reporter=json"}
			}
			if t.Pattern != "" {
				args = append(args, t.Pattern)
			}
			return append(args, t.Paths...)
		}))
	case has("jest"):
		out = append(out, tool("jest", "jest", Test, parseJestJSON, func(bin string, t Target) []string {
			args := []string{bin, "--json", "--ci"}
			if t.Related {
				args = append(args, "--findRelatedTests")
			}
			if t.Pattern != "" {
				args = append(args, "--testPathPattern", t.Pattern)
			}
			return append(args, t.Paths...)
		}))
	}
	if has("eslint") || d.hasAny(dir, "eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", ".eslintrc.json", ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.yml", ".eslintrc") {
		out = append(out, tool("eslint", "eslint", Lint, parseESLint, func(bin string, t Target) []string {
			args := []string{bin, "-f", "json"}
			if t.Fix {
				args = append(args, "--fix")
			}
			if len(t.Paths) == 0 {
				return append(args, ".")
			}
			return append(args, t.Paths...)
		}))
	}
	if has("@biomejs/biome") || d.hasAny(dir, "biome.json", "biome.jsonc") {
		out = append(out, tool("biome", "@biomejs/biome", Lint, parseBiome, func(bin string, t Target) []string {
			args := []string{bin, "lint", "--reporter=json"}
			if t.Fix {
				args = append(args, "--write")
			}
			return append(args, t.Paths...)
		}))
	}
	return out
}

// jsonStart drops anything printed before a JSON document (npm's banners).
func jsonStart(s string) string {
	if i := strings.IndexAny(s, "{["); i > 0 {
		return s[i:]
	}
	return s
}

// parseJestJSON reads jest --json and vitest --reporter=json (the same
// shape).
func parseJestJSON(r *Report, out Output) {
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
	if err := json.Unmarshal([]byte(jsonStart(strings.TrimSpace(out.Stdout))), &rep); err != nil {
		r.fail(r.Check + "'s JSON report could not be read: " + firstLines(out.Stderr+"\n"+out.Stdout, 20))
		return
	}
	r.Passed, r.Failed, r.Skipped = rep.NumPassedTests, rep.NumFailedTests, rep.NumPendingTests+rep.NumTodoTests
	for _, f := range rep.TestResults {
		failedHere := false
		for _, a := range f.AssertionResults {
			if a.Status == "failed" {
				failedHere = true
				r.Failures = append(r.Failures, TestFailure{Name: a.FullName, Message: clip(strings.Join(a.FailureMessages, "\n"), maxMessage), File: f.Name})
			}
		}
		if f.Status == "failed" && !failedHere {
			// The file did not load (a syntax error, a failing import).
			r.Failed++
			r.Failures = append(r.Failures, TestFailure{Name: f.Name, Message: clip(f.Message, maxMessage), File: f.Name})
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
			Message  string  `json:"message"`
			Line     int     `json:"line"`
			Column   int     `json:"column"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(jsonStart(strings.TrimSpace(out.Stdout))), &files); err != nil {
		r.fail("eslint's JSON output could not be read: " + firstLines(out.Stderr+"\n"+out.Stdout, 20))
		return
	}
	for _, f := range files {
		for _, m := range f.Messages {
			is := Issue{File: f.FilePath, Line: m.Line, Column: m.Column, Severity: "warning", Message: m.Message, Rule: "eslint"}
			if m.Severity == 2 {
				is.Severity = "error"
			}
			if m.RuleID != nil {
				is.Rule = *m.RuleID
			}
			r.Issues = append(r.Issues, is)
		}
	}
}

// parseBiome reads biome lint --reporter=json (its shape is not yet
// stable: unknown fields are ignored, the location's path and start line
// are taken where present).
func parseBiome(r *Report, out Output) {
	var rep struct {
		Diagnostics []struct {
			Category    string `json:"category"`
			Severity    string `json:"severity"`
			Description string `json:"description"`
			Location    struct {
				Path  any `json:"path"`
				Start *struct {
					Line int `json:"line"`
				} `json:"start"`
			} `json:"location"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(jsonStart(strings.TrimSpace(out.Stdout))), &rep); err != nil {
		r.fail("biome's JSON output could not be read: " + firstLines(out.Stderr+"\n"+out.Stdout, 20))
		return
	}
	for _, dg := range rep.Diagnostics {
		is := Issue{Severity: "warning", Message: dg.Description, Rule: dg.Category}
		if dg.Severity == "error" || dg.Severity == "fatal" {
			is.Severity = "error"
		}
		switch p := dg.Location.Path.(type) {
		case string:
			is.File = p
		case map[string]any:
			is.File, _ = p["file"].(string)
		}
		if dg.Location.Start != nil {
			is.Line = dg.Location.Start.Line
		}
		r.Issues = append(r.Issues, is)
	}
}
