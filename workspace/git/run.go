package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// safeConfig is passed with -c to every git command this package runs. The
// trees Autarch runs git on are written by agents, so nothing in them may
// start a program, and neither may a driver an agent's .gitattributes
// selects (see hardEnv for the configuration files git reads at all).
//
//   - core.hooksPath=/dev/null: the user's hooks (post-checkout,
//     reference-transaction, …) never run on our operations; git looks for
//     /dev/null/<hook>, which cannot exist.
//   - commit.gpgSign=false, log.showSignature=false: no signing prompt, no
//     gpg on a commit an agent signed.
//   - core.fsmonitor=false: no fsmonitor daemon or hook is started.
//   - submodule.recurse=false, diff.ignoreSubmodules=all,
//     status.submoduleSummary=false: git never starts a git process inside
//     a nested repository (whose own config an agent wrote: filters,
//     fsmonitor, include.path…). Checks that must see gitlinks ask for
//     them with --ignore-submodules=none on a tree-to-index diff, which
//     starts no process.
//   - core.untrackedCache=false: the untracked cache lives in the index,
//     which commands in a linked worktree can write; it is not trusted to
//     hide files.
//   - core.pager=cat, core.askPass=, core.sshCommand=, credential.helper=,
//     protocol.ext.allow=never: no pager, no prompt, no helper program.
//   - gc.auto=0, maintenance.auto=false: a commit starts no background
//     maintenance on an agent's tree.
//   - color.ui=false, diff.noprefix=false: output stays parseable whatever
//     the user configured.
//   - checkout.workers=8: parallel checkout. Creating a 20k-file worktree
//     took 6.6–9 s with git's serial checkout on the test machine and
//     0.35–0.55 s with 8 workers (BenchmarkCreateWorkflow); git only goes
//     parallel above 100 files to write.
//
// diff.external cannot be emptied with -c (git then runs ""): the
// environment drops GIT_EXTERNAL_DIFF and the user's global file, and
// diff, log and show get --no-ext-diff and --no-textconv (hardArgs).
func safeConfig() []string {
	return []string{
		"-c", "core.hooksPath=/dev/null",
		"-c", "commit.gpgSign=false",
		"-c", "log.showSignature=false",
		"-c", "core.fsmonitor=false",
		"-c", "submodule.recurse=false",
		"-c", "diff.ignoreSubmodules=all",
		"-c", "status.submoduleSummary=false",
		"-c", "core.untrackedCache=false",
		"-c", "core.pager=cat",
		"-c", "core.askPass=",
		"-c", "core.sshCommand=",
		"-c", "credential.helper=",
		"-c", "protocol.ext.allow=never",
		"-c", "gc.auto=0",
		"-c", "maintenance.auto=false",
		"-c", "color.ui=false",
		"-c", "diff.noprefix=false",
		"-c", "checkout.workers=8",
	}
}

// userKeys are the settings of the user's global git configuration that
// still apply to our git processes (which read no global file, see
// hardEnv): none of them runs a program. They are read once, when the
// repository is opened (userConfig), and passed with -c.
const userKeys = `^(safe\.directory|core\.excludesfile|core\.autocrlf|core\.eol|core\.safecrlf)$`

// hardEnv is the environment of our git processes: the caller's, without
// any GIT_* variable (GIT_DIR, GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT/
// KEY_n/VALUE_n, GIT_EXTERNAL_DIFF, GIT_ASKPASS, GIT_SSH_COMMAND,
// GIT_EXEC_PATH, GIT_ALTERNATE_OBJECT_DIRECTORIES, …: each could redirect
// git or make it run a program) nor PAGER, SSH_ASKPASS, EDITOR, VISUAL and
// LC_ALL; plus
//
//   - GIT_CONFIG_NOSYSTEM=1, GIT_CONFIG_GLOBAL=/dev/null,
//     GIT_ATTR_NOSYSTEM=1: the only configuration read is the repository's
//     own (the user's, which no sandbox can write) and our -c settings; the
//     drivers (filter, diff, merge) of the user's global file do not run on
//     agent content either. The few harmless global settings that matter
//     (userKeys) are passed on with -c;
//   - GIT_NO_REPLACE_OBJECTS=1: a refs/replace/ ref cannot make us read
//     another object;
//   - GIT_PROTOCOL_FROM_USER=0, GIT_TERMINAL_PROMPT=0, GIT_PAGER=cat: no
//     transport a repository asks for, no prompt, no pager;
//   - GIT_OPTIONAL_LOCKS=0: read commands never rewrite an index
//     opportunistically; LC_ALL=C: stable messages;
//   - the commit identity.
//
// GIT_DIR, GIT_WORK_TREE and GIT_COMMON_DIR are set per command (runner.run).
func hardEnv(environ []string, id Identity) []string {
	env := make([]string, 0, len(environ)+16)
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if isStripped(name) {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_NO_REPLACE_OBJECTS=1",
		"GIT_PROTOCOL_FROM_USER=0",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_PAGER=cat",
		"LC_ALL=C",
		"GIT_AUTHOR_NAME="+id.Name,
		"GIT_AUTHOR_EMAIL="+id.Email,
		"GIT_COMMITTER_NAME="+id.Name,
		"GIT_COMMITTER_EMAIL="+id.Email,
	)
}

// isStripped reports inherited variables our git processes do not get.
// Every GIT_* variable goes: git reads dozens, many name a program or
// another repository, and the ones we need we set ourselves.
func isStripped(name string) bool {
	if strings.HasPrefix(strings.ToUpper(name), "GIT_") {
		return true
	}
	switch name {
	case "PAGER", "SSH_ASKPASS", "EDITOR", "VISUAL", "LC_ALL":
		return true
	}
	return false
}

// runner runs the git CLI on one repository. Once the repository is known
// (gitDir set), every command gets GIT_DIR, GIT_COMMON_DIR and
// GIT_WORK_TREE for the work tree it runs in: git never discovers a
// repository, so a .git (directory or file) an agent planted in a tree, a
// core.worktree in it, or a nested repository is never the one acted on.
type runner struct {
	bin string
	env []string
	// user holds -c settings taken from the user's global configuration
	// (userKeys).
	user []string
	// gitDir is the git directory of top (commonDir for a main work tree);
	// "" before the repository is known (Open's one discovery).
	gitDir, commonDir, top string
	// main is the repository's main work tree (mainTop; "" for none).
	main string
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

// hardArgs adds --no-ext-diff and --no-textconv to the porcelain commands
// that would otherwise run an external diff or a textconv driver.
func hardArgs(args []string) []string {
	if len(args) == 0 {
		return args
	}
	switch args[0] {
	case "diff", "log", "show":
		out := make([]string, 0, len(args)+2)
		out = append(out, args[0], "--no-ext-diff", "--no-textconv")
		return append(out, args[1:]...)
	}
	return args
}

// run runs git with args in dir and returns its stdout. stdin may be nil.
// dir must lie in a work tree of the repository (the user's or a linked
// worktree registered in it), or be its common git directory (plumbing
// with no work tree, as in a bare repository).
func (r *runner) run(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	env := r.env
	full := []string{"-C", dir}
	if r.gitDir != "" {
		loc, err := r.locate(dir)
		if err != nil {
			return nil, err
		}
		env = append(env[:len(env):len(env)], "GIT_DIR="+loc.gitDir, "GIT_COMMON_DIR="+r.commonDir)
		if loc.top == "" {
			full = append(full, "--bare") // plumbing on the git directory itself
		} else {
			env = append(env, "GIT_WORK_TREE="+loc.top)
		}
	}
	full = append(full, safeConfig()...)
	full = append(full, r.user...)
	full = append(full, hardArgs(args)...)
	cmd := exec.CommandContext(ctx, r.bin, full...)
	cmd.Env = env
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

// mainTop is the main work tree of the repository at commonDir: its
// core.worktree (a submodule's git directory under .git/modules names its
// checkout so), else the folder holding a ".git" common directory, else
// "" (no main work tree). Only the repository's own config file is read.
func (r *runner) mainTop(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, r.bin, "config", "--file", filepath.Join(r.commonDir, "config"), "--get", "core.worktree")
	cmd.Env = r.env
	cmd.Dir = r.commonDir
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 1: // not set
	case err != nil:
		return "", fmt.Errorf("read core.worktree of %s: %w", r.commonDir, err)
	default:
		top := strings.TrimSpace(string(out))
		if !filepath.IsAbs(top) {
			top = filepath.Join(r.commonDir, top)
		}
		return filepath.Clean(top), nil
	}
	if filepath.Base(r.commonDir) == ".git" {
		return filepath.Dir(r.commonDir), nil
	}
	return "", nil
}

// location is a work tree of the repository and its git directory.
type location struct{ top, gitDir string }

// locate finds the work tree dir lies in, among the repository's: the one
// it was opened in, the main one (mainTop), and the
// linked worktrees registered in <common>/worktrees (whose gitdir files no
// sandbox can write). The deepest wins (linked worktrees may live inside
// the main one's .git). Nothing in dir itself is read.
func (r *runner) locate(dir string) (location, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return location{}, fmt.Errorf("git: %w", err)
	}
	if abs == r.commonDir {
		return location{gitDir: r.commonDir}, nil // no work tree
	}
	cands := []location{{top: r.top, gitDir: r.gitDir}}
	if r.main != "" && r.main != r.top {
		cands = append(cands, location{top: r.main, gitDir: r.commonDir})
	}
	admin := filepath.Join(r.commonDir, "worktrees")
	entries, _ := os.ReadDir(admin) // none: no linked worktrees
	for _, e := range entries {
		gd := filepath.Join(admin, e.Name())
		data, err := os.ReadFile(filepath.Join(gd, "gitdir"))
		if err != nil {
			continue
		}
		dotGit := strings.TrimSpace(string(data))
		if !filepath.IsAbs(dotGit) {
			dotGit = filepath.Join(gd, dotGit)
		}
		cands = append(cands, location{top: filepath.Dir(filepath.Clean(dotGit)), gitDir: gd})
	}
	if loc, ok := deepest(cands, abs); ok {
		return loc, nil
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		for i, c := range cands {
			if t, err := filepath.EvalSymlinks(c.top); err == nil {
				cands[i].top = t
			}
		}
		if loc, ok := deepest(cands, real); ok {
			return loc, nil
		}
	}
	return location{}, fmt.Errorf("git: %s is in no work tree of the repository %s (neither its own nor a linked worktree registered in it); Autarch runs git only in those", dir, r.commonDir)
}

// deepest is the candidate whose top is dir or its nearest ancestor.
func deepest(cands []location, dir string) (location, bool) {
	var best location
	for _, c := range cands {
		if c.top == "" || len(c.top) <= len(best.top) {
			continue
		}
		if dir == c.top || strings.HasPrefix(dir, c.top+string(filepath.Separator)) || c.top == string(filepath.Separator) {
			best = c
		}
	}
	return best, best.top != ""
}

// userConfig reads the harmless settings of the user's global git
// configuration (userKeys) as -c arguments. environ is the process's own
// environment: its GIT_CONFIG_GLOBAL, if any, names the user's file.
func userConfig(ctx context.Context, bin string, environ []string) []string {
	env := hardEnv(environ, DefaultIdentity())
	env = withoutGlobal(env)
	for _, kv := range environ {
		if strings.HasPrefix(kv, "GIT_CONFIG_GLOBAL=") {
			env = append(env, kv)
		}
	}
	cmd := exec.CommandContext(ctx, bin, "config", "--global", "-z", "--get-regexp", userKeys)
	cmd.Env = append(env, "GIT_DIR="+os.DevNull) // no repository is looked for
	cmd.Dir = os.TempDir()
	out, err := cmd.Output()
	if err != nil { // exit 1: none set; a broken file: git reports it on the next command anyway
		return nil
	}
	var args []string
	for _, rec := range strings.Split(string(out), "\x00") {
		key, val, ok := strings.Cut(rec, "\n")
		if !ok || key == "" {
			continue
		}
		args = append(args, "-c", key+"="+val)
	}
	return args
}

// withoutGlobal drops GIT_CONFIG_GLOBAL from env.
func withoutGlobal(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GIT_CONFIG_GLOBAL=") {
			out = append(out, kv)
		}
	}
	return out
}
