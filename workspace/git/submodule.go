package git

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
)

// submoduleConfig is added to safeConfig for `git submodule update`: only
// the file and https transports may fetch a submodule (no ssh, git://,
// http or ext::, whatever .gitmodules names), and the update is a plain
// checkout (--checkout below: no `update = !command`, merge or rebase a
// configuration asks for). git hands -c settings on to the git processes
// it starts for each submodule (GIT_CONFIG_PARAMETERS), so the hardening
// of safeConfig (no hooks, no fsmonitor, no helpers) holds inside them.
func submoduleConfig() []string {
	return []string{
		"-c", "protocol.allow=never",
		"-c", "protocol.file.allow=always",
		"-c", "protocol.https.allow=always",
		"-c", "http.followRedirects=false",
	}
}

// ErrGitmodulesChanged is a worktree whose .gitmodules differs from its
// commit's: Autarch initialises only the submodules the commit names.
var ErrGitmodulesChanged = errors.New(".gitmodules differs from the commit in the worktree: Autarch initialises only the submodules the commit names")

// InitSubmodules checks out the submodules the workflow's base commit
// names (its .gitmodules), recursively, on the host, as the user would
// with `git submodule update --init --recursive`: sandboxed commands
// cannot write the repository's git directory, where their clones live. It
// returns the paths of the submodules checked out (none when the base has
// no .gitmodules). A .gitmodules that differs from the base's in the
// worktree (planted, or committed by a pulse) is ErrGitmodulesChanged; a
// submodule that cannot be fetched (a transport other than file or https,
// a network error) is an *ExitError saying which.
func (w *Workflow) InitSubmodules(ctx context.Context) ([]string, error) {
	return w.repo.initSubmodules(ctx, w.Worktree, cmp.Or(w.BaseCommit, "HEAD"))
}

// initSubmodules is InitSubmodules in the work tree dir for the commit
// base.
func (r *Repo) initSubmodules(ctx context.Context, dir, base string) ([]string, error) {
	if _, err := r.git.run(ctx, dir, nil, "cat-file", "-e", base+":.gitmodules"); err != nil {
		if exitCode(err) >= 0 {
			return nil, nil // no .gitmodules in the commit
		}
		return nil, err
	}
	if _, err := r.git.run(ctx, dir, nil, "diff", "--quiet", base, "--", ".gitmodules"); err != nil {
		if exitCode(err) == 1 {
			return nil, ErrGitmodulesChanged
		}
		return nil, err
	}
	args := append(submoduleConfig(), "submodule", "update", "--init", "--recursive", "--checkout")
	if _, err := r.git.run(ctx, dir, nil, args...); err != nil {
		return nil, fmt.Errorf("initialise the submodules: %w", err)
	}
	// The gitlinks of the commit (no git process starts in a submodule).
	out, err := r.git.text(ctx, dir, "ls-tree", "-r", "-z", base)
	if err != nil {
		return nil, fmt.Errorf("list the submodules: %w", err)
	}
	var paths []string
	for _, entry := range strings.Split(out, "\x00") {
		meta, path, ok := strings.Cut(entry, "\t")
		if ok && strings.HasPrefix(meta, "160000 commit ") {
			paths = append(paths, path)
		}
	}
	return paths, nil
}

// submodulesUnavailable reports an initSubmodules failure that is the
// repository's (a .gitmodules changed, a submodule that cannot be
// fetched), not the machine's: the preflight agent was told of it.
func submodulesUnavailable(err error) bool {
	var exit *ExitError
	return errors.Is(err, ErrGitmodulesChanged) || errors.As(err, &exit)
}
