package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// safeConfig is passed with -c to every git command this package runs.
//
//   - core.hooksPath=/dev/null: the user's hooks (post-checkout,
//     reference-transaction, …) never run on our operations; git looks for
//     /dev/null/<hook>, which cannot exist.
//   - commit.gpgSign=false: commit-tree honours it and would prompt for keys.
//   - core.fsmonitor=false: no fsmonitor daemon is started for our worktrees.
//   - color.ui=false, diff.noprefix=false: output stays parseable whatever
//     the user configured.
//   - checkout.workers=8: parallel checkout. Creating a 20k-file worktree
//     took 6.6–9 s with git's serial checkout on the test machine and
//     0.35–0.55 s with 8 workers (BenchmarkCreateWorkflow); git only goes
//     parallel above 100 files to write.
func safeConfig() []string {
	return []string{
		"-c", "core.hooksPath=/dev/null",
		"-c", "commit.gpgSign=false",
		"-c", "core.fsmonitor=false",
		"-c", "color.ui=false",
		"-c", "diff.noprefix=false",
		"-c", "checkout.workers=8",
	}
}

// baseEnv is the environment of our git processes: the caller's, minus the
// variables above, plus GIT_TERMINAL_PROMPT=0 (never wait for a password),
// GIT_OPTIONAL_LOCKS=0 (read commands never rewrite an index
// opportunistically) and LC_ALL=C (stable messages).
func baseEnv(id Identity) []string {
	env := make([]string, 0, len(os.Environ())+8)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if isStripped(name) || name == "LC_ALL" {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0",
		"LC_ALL=C",
		"GIT_AUTHOR_NAME="+id.Name,
		"GIT_AUTHOR_EMAIL="+id.Email,
		"GIT_COMMITTER_NAME="+id.Name,
		"GIT_COMMITTER_EMAIL="+id.Email,
	)
}

// isStripped reports inherited variables that would redirect git to another
// repository, index or identity (set, for example, when we run inside a
// user's hook), or that we set ourselves.
func isStripped(name string) bool {
	switch name {
	case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
		"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE",
		"GIT_PREFIX", "GIT_QUARANTINE_PATH", "GIT_INDEX_VERSION",
		"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
		"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
		"GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS":
		return true
	}
	return false
}

// runner runs the git CLI.
type runner struct {
	bin string
	env []string
}

// ExitError is a git command that ran and failed.
type ExitError struct {
	Args   []string
	Code   int
	Stderr string
}

func (e *ExitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.Code)
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

// run runs git with args in dir and returns its stdout. stdin may be nil.
func (r *runner) run(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	full := append([]string{"-C", dir}, safeConfig()...)
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, r.bin, full...)
	cmd.Env = r.env
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err == nil {
		return stdout.Bytes(), nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, fmt.Errorf("git %s: %w", args[0], ctxErr)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return stdout.Bytes(), &ExitError{Args: args, Code: exit.ExitCode(), Stderr: stderr.String()}
	}
	return nil, fmt.Errorf("git %s: %w", args[0], err)
}

// text runs git and returns its stdout without the trailing newline.
func (r *runner) text(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := r.run(ctx, dir, nil, args...)
	return strings.TrimRight(string(out), "\n"), err
}

// exitCode reports the exit code of a failed git command, or -1.
func exitCode(err error) int {
	var e *ExitError
	if errors.As(err, &e) {
		return e.Code
	}
	return -1
}
