package git

import (
	"context"
	"io"
)

// Git runs git with args in dir (a work tree of the repository, e.g. a
// job's linked worktree, or a folder in one) hardened as every git process
// of this package is (see the package's Safety section: no inherited or
// global configuration, no hooks, drivers, helpers or submodule recursion,
// the repository named explicitly), and returns its stdout; a command that
// ran and failed is an *ExitError. A dir in no work tree of the repository
// is an error. stdin may be nil. To stage changes use StageAll, which
// leaves out nested repositories and gitlinks an agent created.
func (r *Repo) Git(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	return r.git.run(ctx, dir, stdin, args...)
}
