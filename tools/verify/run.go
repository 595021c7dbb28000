package verify

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Run runs one check for a target within timeout and parses its output.
// Every way the check cannot give a verdict (the tool is missing, the
// command cannot run, it timed out, its output makes no sense) is a report
// with status "error" and an explanation, never a Go error.
func Run(ctx context.Context, exec Exec, c Check, t Target, timeout time.Duration) Report {
	r := Report{Check: c.Name, Kind: c.Kind, Dir: c.Dir, Command: c.Command(t)}
	if c.Missing != "" {
		r.fail(c.Missing)
		return r
	}
	command := r.Command
	if c.goTool {
		ctx = goCommand(ctx)
		if c.root != "" {
			// The report keeps the check's command: the digest is the
			// gate cache's business, and differs from one run to the next.
			command = scanGoTree(ctx, c.root, c.Dir).wrap(command, c.Dir)
		}
	}
	out, err := exec(ctx, c.Dir, command, timeout)
	r.Duration, r.Output, r.ExitCode = out.Duration, joinOutput(out), out.ExitCode
	switch {
	case err != nil:
		r.fail(fmt.Sprintf("%s could not run: %v", c.Name, err))
		return r
	case out.TimedOut:
		r.fail(fmt.Sprintf("%s timed out after %s and was stopped (everything it started was killed); narrow the run with path or pattern, or raise timeout", c.Name, timeout.Round(100*time.Millisecond)))
		return r
	case ctx.Err() != nil:
		r.fail(fmt.Sprintf("%s was cancelled: %v", c.Name, context.Cause(ctx)))
		return r
	}
	c.parse(&r, out)
	c.relativize(&r)
	r.settle()
	if r.Status == StatusPass && out.ExitCode != 0 && r.Kind != Lint && len(r.PreExistingFailures) == 0 {
		// The tool says it failed and nothing parsed explains why.
		r.fail(fmt.Sprintf("%s exited with status %d without a parsable failure:\n%s", c.Name, out.ExitCode, firstLines(lastBytes(r.Output, 3000), 40)))
	}
	return r
}

func joinOutput(out Output) string {
	switch {
	case out.Stderr == "":
		return out.Stdout
	case out.Stdout == "":
		return out.Stderr
	}
	return out.Stdout + "\n" + out.Stderr
}

func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// relativize makes the files a tool reported relative to the root: tools
// print them absolute (eslint, ruff) or relative to where they ran.
func (c Check) relativize(r *Report) {
	fix := func(f string) string {
		if f == "" {
			return f
		}
		if filepath.IsAbs(f) {
			if rel, err := filepath.Rel(c.root, f); err == nil && !strings.HasPrefix(rel, "..") {
				return filepath.ToSlash(rel)
			}
			return f
		}
		return path.Join(c.Dir, filepath.ToSlash(f))
	}
	for i := range r.Failures {
		f := &r.Failures[i]
		file := fix(f.File)
		if f.Name == f.File {
			f.Name = file // a test file that did not load is named by its path
		}
		f.File = file
	}
	for i := range r.Issues {
		r.Issues[i].File = fix(r.Issues[i].File)
	}
}

// goCommandKey marks the context of a command that is the go command
// alone.
type goCommandKey struct{}

// goCommand marks ctx's command as the go command alone (GoCommand).
func goCommand(ctx context.Context) context.Context {
	return context.WithValue(ctx, goCommandKey{}, true)
}

// GoCommand reports whether the command Exec is given with ctx is one of
// the detected Go checks' (go build, go test, go vet, go list): the go
// command alone, which runs no program of the repository's but the test
// binaries go test runs, so that Exec may give it a Go build cache no
// program of the agent's may write (the sandbox's gate cache, which it
// keeps from the test binaries). Every other check (a linter that loads
// the repository's plugins, a configured command running its Makefile,
// another language's test runner) runs the repository's programs.
func GoCommand(ctx context.Context) bool { return ctx.Value(goCommandKey{}) != nil }
