package tools

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/autarch-dev/autarch/tools/shellcmd"
	"github.com/autarch-dev/autarch/tools/verify"
)

// Shell limits (spec/autarch-tools.md behavioural constants).
const (
	ShellTimeoutDefault = 60
	ShellTimeoutMax     = 300
	// OutputTruncation is the threshold (characters per stream) above which
	// output is truncated, keeping its beginning and end.
	OutputTruncation = 512
)

const preflightNote = `
Use this to run environment setup commands like:
- npm install, go mod download, pip install -r requirements.txt
(git cannot write the repository from a command: git submodule update fails here)

WARNING: You must NOT modify any files tracked by git.
Only untracked artifacts (dependencies, build outputs) may be created.
`

// pulsingShellNote is the Pulsing shell description's addition (spec/autarch-tools.md).
const pulsingShellNote = `
You are working in an isolated git worktree. All commands run in that context.
Git can read the repository (status, diff, log) but no command can write it (add, commit, stash, branch): Autarch makes the commit when the pulse completes.
`

type shellParams struct {
	Reason         string `json:"reason"`
	Command        string `json:"command" jsonschema:"Shell command to execute"`
	TimeoutSeconds *int   `json:"timeoutSeconds,omitempty" jsonschema:"Timeout in seconds (default: 60, max: 300)"`
}

// Command classes (tool-engine.md layer 2): the names of shellcmd.Class.
const (
	classSafe      = "safe"
	classDev       = "dev"
	classDangerous = "dangerous"
)

// classify returns the class of the least safe command in a command line:
// "safe", "dev" or "dangerous" (see package shellcmd).
func classify(command string) string {
	return shellcmd.Analyze(command).Class.String()
}

func newShell(role string) Tool {
	desc := describe("shell")
	switch role {
	case "preflight":
		desc += preflightNote
	case "pulsing":
		desc += pulsingShellNote
	}
	t := newTool("shell", desc, Write, runShell).declare(EffectExecute, CategoryMutating)
	t.sensitive = func(p shellParams) bool { return classify(p.Command) != classSafe }
	return t
}

func runShell(ctx context.Context, s *Session, p shellParams) (Result, error) {
	if strings.TrimSpace(p.Command) == "" {
		return opError("Command cannot be empty"), nil
	}
	analysis := shellcmd.Analyze(p.Command)
	if b := analysis.Blocked; b != nil {
		return refusal("Guardrail: command blocked (" + b.Reason + ")"), nil
	}
	if s.cfg.AllowedOnly && analysis.Class == shellcmd.Dangerous {
		return refusal(allowedOnlyRefusal), nil
	}
	timeout := ShellTimeoutDefault
	if d := s.cfg.Commands.DefaultTimeout; d > 0 {
		timeout = int(d / time.Second)
	}
	if p.TimeoutSeconds != nil {
		timeout = *p.TimeoutSeconds
		if timeout < 1 || timeout > ShellTimeoutMax {
			return opError(fmt.Sprintf("timeoutSeconds must be between 1 and %d", ShellTimeoutMax)), nil
		}
	}
	run, err := s.runCommand(ctx, p.Command, time.Duration(timeout)*time.Second)
	if err != nil {
		return opError(err.Error()), nil
	}
	code := run.code
	if code != 0 && gitWriteRefused(run.stderr) {
		run.notices = append(run.notices, gitReadOnlyNotice)
	}
	if code != 0 && cacheWriteRefused(run.stderr) {
		run.notices = append(run.notices, cacheReadOnlyNotice)
	}
	fullOut, fullErr := s.gate.RedactLines(run.stdout), s.gate.RedactLines(run.stderr)
	stdout, stderr := truncate(fullOut), truncate(fullErr)
	if run.timedOut {
		out := map[string]any{"success": false, "error": fmt.Sprintf("Command timed out after %d seconds", timeout), "stdout": stdout, "stderr": stderr}
		if len(run.notices) > 0 {
			out["notice"] = strings.Join(run.notices, " ")
		}
		return jsonResult(out, true), nil
	}
	out := map[string]any{"success": code == 0, "exit_code": code, "stdout": stdout, "stderr": stderr}
	if len(run.notices) > 0 {
		out["notice"] = strings.Join(run.notices, " ")
	}
	failed := code != 0
	if failed {
		if known := verify.PreExistingIn(fullOut+"\n"+fullErr, s.verifyBaselines()); known != nil {
			out["pre_existing"] = known
			out["note"] = "Every reported issue matches a baseline recorded in preflight: this failure is pre-existing and does not count against the pulse."
			failed = false
		}
	}
	return jsonResult(out, failed), nil
}

// commandRun is how a session's command ended.
type commandRun struct {
	code           int
	stdout, stderr string
	timedOut       bool
	// notices tell the model what Autarch undid after the command (a
	// planted .git removed).
	notices []string
}

// runCommand runs a command in the session's sandbox; on timeout or
// cancellation everything it started is killed. Every command of a
// session (shell, run_tests, run_lint, read_lints, preflight, quality
// gates) runs here: afterwards, what it planted at the root (.git,
// .autarch, .mcp.json where none was) is removed. err is a message for
// the model and the user when the command cannot run at all (no sandbox)
// or what it planted could not be removed.
func (s *Session) runCommand(ctx context.Context, command string, timeout time.Duration) (commandRun, error) {
	sb, err := s.commandSandbox(ctx)
	if err != nil {
		return commandRun{code: -1}, fmt.Errorf("commands are refused: %w", err)
	}
	unlock, err := s.sharedMaskState().lockCommands(ctx)
	if err != nil {
		return commandRun{code: -1}, err
	}
	spec, err := s.commandSpec(ctx, command, timeout)
	if err != nil {
		unlock()
		return commandRun{code: -1}, fmt.Errorf("commands are refused: cannot confine the command: %w", err)
	}
	guard := s.guardRoot()
	res, runErr := sb.Run(ctx, spec)
	notices, err := guard.undo()
	unlock()
	run := commandRun{code: res.ExitCode, stdout: res.Stdout, stderr: res.Stderr, timedOut: res.TimedOut, notices: notices}
	if err != nil {
		return run, err
	}
	if runErr != nil {
		run.code = -1
		return run, fmt.Errorf("running the command: %w", runErr)
	}
	if note := s.withheldNote(run.stderr); note != "" && run.code != 0 {
		run.stderr += "\n" + note + "\n"
	}
	return run, nil
}

// gitReadOnlyNotice explains a git write refused by the sandbox.
const gitReadOnlyNotice = "git cannot write the repository from a command (commits, branches, tags, stash, config and the index are read-only): Autarch commits the worktree itself at the end of the pulse (commit_changes in a job). Read with git (status, diff, log, show) and leave committing to Autarch; to undo your changes to a file, write it from git instead of checkout or restore: git show HEAD:path/to/file > path/to/file."

// gitWriteRefused reports whether stderr shows git failing to write the
// read-only repository.
func gitWriteRefused(stderr string) bool { return gitWriteRefusedRE().MatchString(stderr) }

var gitWriteRefusedRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(fatal|error): .*(Read-only file system|insufficient permission for adding an object|could not lock config file|cannot lock ref|unable to (create|write|append)|could not write)`)
})

// cacheReadOnlyNotice explains a download into the user's own Go module
// cache or cargo registry refused by the sandbox.
const cacheReadOnlyNotice = "The user's Go module cache and cargo registry are read-only to every command, preflight included (a planted module would run in the user's own builds): commands can use the modules and crates already there but cannot download others. Tell the user which dependencies are missing and ask them to run `go mod download` (or `cargo fetch`) in the repository themselves, then run the command again."

// cacheWriteRefused reports whether stderr shows a download into the
// user's read-only Go module cache or cargo registry failing.
func cacheWriteRefused(stderr string) bool { return cacheWriteRefusedRE().MatchString(stderr) }

var cacheWriteRefusedRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?is)(/pkg/mod/|/\.cargo/(registry|git)/).*read-only file system`)
})

// truncate keeps the first quarter and the last three quarters of the
// threshold of a long stream, saying how much was cut.
func truncate(s string) string {
	if len(s) <= OutputTruncation {
		return s
	}
	head, tail := OutputTruncation/4, OutputTruncation*3/4
	return s[:head] + fmt.Sprintf("\n…[%d characters truncated]…\n", len(s)-head-tail) + s[len(s)-tail:]
}
