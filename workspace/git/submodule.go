package git

import (
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

// InitSubmodules checks out the submodules the workflow's commit names
// (its .gitmodules), recursively, on the host, as the user would with `git
// submodule update --init --recursive`: sandboxed commands cannot write
// the repository's git directory, where their clones live. It returns the
// paths of the submodules checked out (none when the commit has no
// .gitmodules). A submodule that cannot be fetched (a transport other than
// file or https, a network error) is an *ExitError saying which.
func (w *Workflow) InitSubmodules(ctx context.Context) ([]string, error) {
	if _, err := w.text(ctx, "cat-file", "-e", "HEAD:.gitmodules"); err != nil {
		if exitCode(err) >= 0 {
			return nil, nil // no .gitmodules in the commit
		}
		return nil, err
	}
	if _, err := w.run(ctx, nil, "diff", "--quiet", "HEAD", "--", ".gitmodules"); err != nil {
		if exitCode(err) == 1 {
			return nil, ErrGitmodulesChanged
		}
		return nil, err
	}
	args := append(submoduleConfig(), "submodule", "update", "--init", "--recursive", "--checkout")
	if _, err := w.run(ctx, nil, args...); err != nil {
		return nil, fmt.Errorf("initialise the submodules: %w", err)
	}
	// The gitlinks of the commit (no git process starts in a submodule).
	out, err := w.text(ctx, "ls-tree", "-r", "-z", "HEAD")
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
