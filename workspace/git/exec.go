package git

import (
	"context"
	"io"
)

// Git runs git with args in dir (a work tree of the repository, e.g. a
// job's linked worktree) with this package's safe configuration (no user
// hooks, no signing prompts) and environment, and returns its stdout; a
// command that ran and failed is an *ExitError. stdin may be nil.
func (r *Repo) Git(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	return r.git.run(ctx, dir, stdin, args...)
}
