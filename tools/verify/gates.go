package verify

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// DefaultGateTimeout bounds a whole gate run when the configuration sets
// no limit.
const DefaultGateTimeout = 10 * time.Minute

// Gates configures the quality gates run when an agent completes work.
type Gates struct {
	// Off disables the gates (only explicit configuration turns them off).
	Off bool
	// Kinds are the gates to run (empty: build, test and lint).
	Kinds []Kind
	// Full runs every check on the whole project instead of only what the
	// changed files affect.
	Full bool
	// Timeout bounds the whole run (0: DefaultGateTimeout).
	Timeout time.Duration
	// Paths scope the gates: when set, they run only if a changed file
	// matches one of these globs (doublestar, relative to the root).
	Paths []string
	// Commands replace the detected checks of a kind with a command run
	// at the root (trusted configuration only); its failures are parsed
	// from file:line lines and its exit status.
	Commands map[Kind]string
}

// GateRun is the outcome of one gate run.
type GateRun struct {
	// Reports are the checks run, in order, with baselines filtered.
	Reports []Report `json:"reports"`
	// Skipped says why nothing ran ("" when something did).
	Skipped  string        `json:"skipped,omitempty"`
	Duration time.Duration `json:"duration"`
	// Changed are the files the run was about.
	Changed []string `json:"changed,omitempty"`
}

// Failed reports whether a gate found a new failure or could not run.
func (g GateRun) Failed() bool {
	return slices.ContainsFunc(g.Reports, func(r Report) bool { return r.Status != StatusPass })
}

// RunGates runs the configured gates for the changed files (relative to
// the detector's root): per project a changed file belongs to, the build,
// then the tests and the linters, of the packages the change affects
// (Go: the changed packages and their reverse dependencies; JS: the tests
// related to the changed files; Python: the changed test modules, or the
// whole suite when none changed), or of everything when cfg.Full. A
// project whose build fails is not tested or linted (its compile errors
// would only repeat). Baselines filter every report.
func RunGates(ctx context.Context, exec Exec, d Detector, cfg Gates, changed []string, baselines []Baseline) (run GateRun) {
	start := time.Now()
	run = GateRun{Changed: changed}
	defer func() { run.Duration = time.Since(start) }()
	switch {
	case cfg.Off:
		run.Skipped = "quality gates are turned off by the repository configuration"
		return run
	case len(changed) == 0:
		run.Skipped = "nothing changed"
		return run
	case len(cfg.Paths) > 0 && !anyMatch(cfg.Paths, changed):
		run.Skipped = "no changed file is in the gates' paths (" + strings.Join(cfg.Paths, ", ") + ")"
		return run
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultGateTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	kinds := cfg.Kinds
	if len(kinds) == 0 {
		kinds = Kinds
	}
	remaining := func() time.Duration {
		dl, _ := ctx.Deadline()
		return max(time.Until(dl), time.Second)
	}
	add := func(r Report) {
		r.Filter(baselines)
		run.Reports = append(run.Reports, r)
	}
	// Configured commands run once, at the root.
	for _, k := range kinds {
		if cmd := cfg.Commands[k]; cmd != "" {
			add(Run(ctx, exec, configured(k, cmd), Target{}, remaining()))
		}
	}
	byProject := map[string][]string{}
	var projects []string
	for _, f := range changed {
		p := d.ProjectOf(f)
		if p == "" {
			continue
		}
		if _, ok := byProject[p]; !ok {
			projects = append(projects, p)
		}
		rel := strings.TrimPrefix(f, p+"/")
		if p == "." {
			rel = f
		}
		byProject[p] = append(byProject[p], rel)
	}
	slices.Sort(projects)
	for _, p := range projects {
		files := byProject[p]
		checks := d.projectChecks(p)
		var goPkgs []string
		if !cfg.Full && slices.ContainsFunc(checks, func(c Check) bool { return c.Name == "go test" && c.Missing == "" }) {
			pkgs, err := goAffected(ctx, exec, d.Root, p, files, remaining())
			if err != nil {
				add(Report{Check: "go list", Kind: Build, Dir: p, Status: StatusError, Error: err.Error()})
				continue
			}
			if pkgs == nil {
				continue // no Go package is affected (docs, data outside packages)
			}
			goPkgs = pkgs
		}
		broken := false
		for _, k := range kinds {
			if cfg.Commands[k] != "" || broken && k != Build {
				continue
			}
			for _, c := range checks {
				if c.Kind != k {
					continue
				}
				t, ok := affectedTarget(c, files, goPkgs, cfg.Full)
				if !ok {
					continue
				}
				r := Run(ctx, exec, c, t, remaining())
				add(r)
				if k == Build && r.Status != StatusPass {
					broken = true
				}
			}
		}
	}
	if len(run.Reports) == 0 && run.Skipped == "" {
		run.Skipped = "no build, test runner or linter applies to the changed files"
	}
	return run
}

// affectedTarget narrows a check to what the changed files (relative to
// its project) affect; ok=false skips the check.
func affectedTarget(c Check, files, goPkgs []string, full bool) (Target, bool) {
	if full {
		return Target{}, true
	}
	switch c.Name {
	case "go build", "go test", "go vet", "golangci-lint":
		return Target{Packages: goPkgs}, true
	case "vitest", "jest":
		src := filterExt(files, ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte")
		if len(src) == 0 {
			return Target{}, false
		}
		return Target{Paths: src, Related: true}, true
	case "eslint", "biome":
		src := filterExt(files, ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte", ".json")
		if c.Name == "eslint" {
			src = filterExt(src, ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte")
		}
		if len(src) == 0 {
			return Target{}, false
		}
		return Target{Paths: src}, true
	case "ruff":
		py := filterExt(files, ".py", ".pyi")
		if len(py) == 0 {
			return Target{}, false
		}
		return Target{Paths: py}, true
	case "pytest":
		py := filterExt(files, ".py")
		var tests []string
		for _, f := range py {
			base := path.Base(f)
			if strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") {
				tests = append(tests, f)
			}
		}
		return Target{Paths: tests}, true // no changed test module: the whole suite
	}
	return Target{}, true
}

func filterExt(files []string, exts ...string) []string {
	var out []string
	for _, f := range files {
		if slices.Contains(exts, path.Ext(f)) {
			out = append(out, f)
		}
	}
	return out
}

func anyMatch(globs, files []string) bool {
	for _, f := range files {
		for _, g := range globs {
			if ok, _ := doublestar.Match(g, f); ok {
				return true
			}
		}
	}
	return false
}

// goAffected lists the packages of the Go module at dir that the changed
// files (relative to dir) affect: the packages holding them and every
// package that imports one of those, directly or through others, in its
// code or its tests; as "./rel" patterns. nil: no package is affected. A
// change to go.mod or go.sum affects everything, and so does a change to
// a file other than a .go file when the packages have cgo or assembly:
// a C preamble, a C or an assembly file may include it from any folder
// (root is the detector's; dir is relative to it).
func goAffected(ctx context.Context, exec Exec, root, dir string, files []string, timeout time.Duration) ([]string, error) {
	for _, f := range files {
		if f == "go.mod" || f == "go.sum" || f == "go.work" {
			return []string{"./..."}, nil
		}
	}
	if root != "" && slices.ContainsFunc(files, func(f string) bool { return path.Ext(f) != ".go" }) {
		if g := scanGoTree(ctx, root, dir); g.cgo || g.asm {
			return []string{"./..."}, nil
		}
	}
	out, err := exec(goCommand(ctx), dir, `go list -e -json=ImportPath,Dir,Imports,TestImports,XTestImports,Module ./...`, timeout)
	if err != nil {
		return nil, fmt.Errorf("listing the Go packages: %w", err)
	}
	if out.TimedOut {
		return nil, fmt.Errorf("listing the Go packages timed out after %s", timeout)
	}
	type pkg struct {
		ImportPath                         string
		Dir                                string
		Imports, TestImports, XTestImports []string
		Module                             *struct{ Dir string }
	}
	var pkgs []pkg
	dec := json.NewDecoder(bufio.NewReader(strings.NewReader(out.Stdout)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("reading go list's output: %w (%s)", err, firstLines(out.Stderr, 10))
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("go list found no packages: %s", firstLines(out.Stderr, 10))
	}
	rel := map[string]string{} // import path → dir relative to the module
	byDir := map[string]string{}
	importers := map[string][]string{}
	for _, p := range pkgs {
		r := "."
		if p.Module != nil && p.Module.Dir != "" && strings.HasPrefix(p.Dir, p.Module.Dir) {
			r = strings.TrimPrefix(strings.TrimPrefix(p.Dir, p.Module.Dir), "/")
			if r == "" {
				r = "."
			}
		}
		rel[p.ImportPath], byDir[r] = r, p.ImportPath
		seen := map[string]bool{}
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if !seen[imp] {
				seen[imp] = true
				importers[imp] = append(importers[imp], p.ImportPath)
			}
		}
	}
	affected := map[string]bool{}
	var queue []string
	for _, f := range files {
		for d := path.Dir(f); ; d = path.Dir(d) {
			if ip, ok := byDir[d]; ok {
				if !affected[ip] {
					affected[ip] = true
					queue = append(queue, ip)
				}
				break
			}
			if d == "." {
				break
			}
		}
	}
	for len(queue) > 0 {
		ip := queue[0]
		queue = queue[1:]
		for _, imp := range importers[ip] {
			if !affected[imp] {
				affected[imp] = true
				queue = append(queue, imp)
			}
		}
	}
	switch len(affected) {
	case 0:
		return nil, nil
	case len(pkgs):
		return []string{"./..."}, nil // everything: the short pattern, as a full run
	}
	var patterns []string
	for ip := range affected {
		if r := rel[ip]; r == "." {
			patterns = append(patterns, ".")
		} else {
			patterns = append(patterns, "./"+r)
		}
	}
	slices.Sort(patterns)
	return patterns, nil
}

// Configured is the check of a command the (trusted) configuration sets
// for a kind, run at the root: how the gates run it.
func Configured(k Kind, command string) Check { return configured(k, command) }

// configured is the check of a command the repository configures for a
// kind: its file:line findings are issues; for a test command, a failure
// without one is the output's tail.
func configured(k Kind, command string) Check {
	return Check{Name: "configured " + string(k), Kind: k, Dir: ".", command: func(Target) string { return command },
		parse: func(r *Report, out Output) {
			r.Issues = compilerIssues(out.Stderr + "\n" + out.Stdout)
			if out.ExitCode == 0 {
				r.Issues = nil
				return
			}
			if k == Test || len(r.Issues) == 0 {
				r.Failed = 1
				r.Failures = []TestFailure{{Name: command, Message: clip(lastBytes(joinOutput(out), maxMessage), maxMessage)}}
			}
		}}
}
