package git

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// FileCommit is one commit of a file history: its message and the files
// it changed (repository-relative, slash-separated).
type FileCommit struct {
	Hash    string
	Message string
	Paths   []string
}

// History lists the commits reachable from HEAD and not from since
// (every commit when since is ""), newest first, at most max of them,
// with the files each changed (renames as delete and add), and returns
// HEAD. A repository without commits has no history and no HEAD. A since
// that no longer exists (history rewritten) lists from the start.
func (r *Repo) History(ctx context.Context, since string, max int) ([]FileCommit, string, error) {
	head, err := r.git.text(ctx, r.top, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil || head == "" {
		return nil, "", nil // no commits yet
	}
	if head == since {
		return nil, head, nil
	}
	args := []string{"log", "--no-renames", "--name-only", "--no-color", "--format=%x1e%H%n%B%x1f", fmt.Sprintf("--max-count=%d", max), "HEAD"}
	if since != "" {
		if _, err := r.git.text(ctx, r.top, "cat-file", "-e", since+"^{commit}"); err == nil {
			args = append(args, "^"+since)
		}
	}
	out, err := r.git.run(ctx, r.top, nil, args...)
	if err != nil {
		var ee *ExitError
		if errors.As(err, &ee) {
			return nil, head, fmt.Errorf("reading the history: %w", err)
		}
		return nil, head, err
	}
	var commits []FileCommit
	for _, rec := range strings.Split(string(out), "\x1e")[1:] {
		msg, files, _ := strings.Cut(rec, "\x1f")
		hash, body, _ := strings.Cut(msg, "\n")
		c := FileCommit{Hash: hash, Message: strings.TrimSpace(body)}
		for _, f := range strings.Split(files, "\n") {
			if f = strings.TrimSpace(f); f != "" {
				c.Paths = append(c.Paths, f)
			}
		}
		commits = append(commits, c)
	}
	return commits, head, nil
}
