package team

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

// worktree is the git work tree a session's root is, for the team's git
// operations.
type worktree struct {
	repo *git.Repo
	dir  string
}

// errNoRepository: the session's root was in no repository when the
// session started.
var errNoRepository = errors.New("this session's folder was not in a git repository when the session started; Autarch does not use a .git created since. Run the job in a git repository (git init it yourself, outside Autarch, then start a new session)")

// openWorktree opens the repository the session's root was in when the
// session started (tools.Session.GitCommonDir), naming it explicitly: a
// .git a command created in the root or below is never the repository
// acted on.
func openWorktree(ctx context.Context, s *tools.Session) (*worktree, error) {
	dir := s.Root().Dir()
	common := s.GitCommonDir()
	if common == "" {
		return nil, errNoRepository
	}
	r, err := git.OpenWorktree(ctx, dir, common, git.Config{})
	if err != nil {
		return nil, err
	}
	return &worktree{repo: r, dir: dir}, nil
}

// run runs git in the work tree.
func (w *worktree) run(ctx context.Context, args ...string) ([]byte, error) {
	return w.repo.Git(ctx, w.dir, nil, args...)
}

// text runs git and returns its output without the trailing newline.
func (w *worktree) text(ctx context.Context, args ...string) (string, error) {
	out, err := w.run(ctx, args...)
	return strings.TrimRight(string(out), "\n"), err
}

// linked reports whether the work tree is a linked worktree (a job's),
// not the repository's main working tree (the user's).
func (w *worktree) linked(ctx context.Context) (bool, error) {
	out, err := w.text(ctx, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir")
	if err != nil {
		return false, err
	}
	gitDir, common, ok := strings.Cut(out, "\n")
	if !ok {
		return false, fmt.Errorf("unexpected rev-parse output %q", out)
	}
	return filepath.Clean(gitDir) != filepath.Clean(common), nil
}

// requireLinked refuses to act in the user's working tree.
func (w *worktree) requireLinked(ctx context.Context, tool string) (string, error) {
	ok, err := w.linked(ctx)
	if err != nil {
		return "", err
	}
	if !ok {
		return tool + " works in the job's own worktree only, and this session's root (" + w.dir + ") is the repository's main working tree: it never checks anything out or commits there. Start a job (autarch job) to get a worktree.", nil
	}
	return "", nil
}

// branch is the checked-out branch ("" when HEAD is detached).
func (w *worktree) branch(ctx context.Context) (string, error) {
	out, err := w.text(ctx, "symbolic-ref", "--short", "-q", "HEAD")
	var exit *git.ExitError
	if errors.As(err, &exit) && exit.Code == 1 {
		return "", nil
	}
	return out, err
}

// exists reports whether rev names a commit.
func (w *worktree) exists(ctx context.Context, rev string) (bool, error) {
	_, err := w.run(ctx, "rev-parse", "--verify", "-q", "--end-of-options", rev+"^{commit}")
	var exit *git.ExitError
	if errors.As(err, &exit) {
		return false, nil
	}
	return err == nil, err
}

// gitMessage is a failed git command's message for the model.
func gitMessage(err error) string {
	var exit *git.ExitError
	if errors.As(err, &exit) {
		return strings.TrimSpace(exit.Stderr)
	}
	return err.Error()
}
