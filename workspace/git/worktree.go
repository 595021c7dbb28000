package git

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// WorktreeInfo is one entry of `git worktree list`.
type WorktreeInfo struct {
	Path     string
	Head     string // commit id; "" for an unborn branch
	Branch   string // full ref name; "" when detached
	Bare     bool
	Detached bool
	Locked   bool
	Prunable bool
}

// Worktrees lists every worktree of the repository, the user's included.
func (r *Repo) Worktrees(ctx context.Context) ([]WorktreeInfo, error) {
	out, err := r.git.run(ctx, r.dir, nil, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, fmt.Errorf("list worktrees: %w", err)
	}
	return parseWorktreeList(out), nil
}

// parseWorktreeList parses `git worktree list --porcelain -z`: NUL-terminated
// attribute lines, records separated by an empty one.
func parseWorktreeList(out []byte) []WorktreeInfo {
	var list []WorktreeInfo
	var cur *WorktreeInfo
	for _, field := range bytes.Split(out, []byte{0}) {
		line := string(field)
		if line == "" {
			cur = nil
			continue
		}
		key, val, _ := strings.Cut(line, " ")
		if key == "worktree" {
			list = append(list, WorktreeInfo{Path: filepath.Clean(val)})
			cur = &list[len(list)-1]
			continue
		}
		if cur == nil {
			continue
		}
		switch key {
		case "HEAD":
			cur.Head = val
		case "branch":
			cur.Branch = val
		case "bare":
			cur.Bare = true
		case "detached":
			cur.Detached = true
		case "locked":
			cur.Locked = true
		case "prunable":
			cur.Prunable = true
		}
	}
	return list
}

// checkedOutElsewhere returns the path of a worktree other than ours that
// has ref (a full branch name) checked out, or "".
func (r *Repo) checkedOutElsewhere(ctx context.Context, ref, ours string) (string, error) {
	list, err := r.Worktrees(ctx)
	if err != nil {
		return "", err
	}
	for _, w := range list {
		if w.Branch == ref && !samePath(w.Path, ours) {
			return w.Path, nil
		}
	}
	return "", nil
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
