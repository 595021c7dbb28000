package git

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Workflow is a workflow's branch and linked worktree. Its methods serialize
// on an internal lock; a Workflow must not be copied.
type Workflow struct {
	mu   sync.Mutex
	repo *Repo

	// Name is the workflow name (see ValidateName).
	Name string
	// Branch is the workflow branch, autarch/<Name>.
	Branch string
	// Base is the base as the user named it (a branch, tag or commit).
	Base string
	// BaseCommit is the commit the workflow branch forked from Base.
	BaseCommit string
	// Worktree is the absolute path of the linked worktree.
	Worktree string

	adminDir string // the worktree's private git dir, resolved lazily
	// untracked is what the last listing of untracked files found
	// (FollowChanges).
	untracked *untrackedState
}

// CreateWorkflow creates branch autarch/<name> at base (the user's current
// branch when base is "") and a linked worktree for it under WorktreeRoot.
// The user's HEAD, index and working tree are not touched.
func (r *Repo) CreateWorkflow(ctx context.Context, name, base string) (*Workflow, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	if base == "" {
		cur, err := r.CurrentBranch(ctx)
		if err != nil {
			return nil, fmt.Errorf("create workflow %s: %w", name, err)
		}
		base = cur
		if base == "" {
			base = "HEAD"
		}
	}
	baseCommit, err := r.ResolveCommit(ctx, base)
	if err != nil {
		return nil, fmt.Errorf("create workflow %s: base %w", name, err)
	}
	branch := WorkflowBranch(name)
	ref := "refs/heads/" + branch
	if ok, err := r.refExists(ctx, ref); err != nil {
		return nil, fmt.Errorf("create workflow %s: %w", name, err)
	} else if ok {
		return nil, fmt.Errorf("create workflow %s: branch %s already exists: choose another name, or open the existing workflow", name, branch)
	}
	path := r.WorktreePath(name)
	if err := ensureAbsent(path); err != nil {
		return nil, fmt.Errorf("create workflow %s: %w", name, err)
	}
	if _, err := r.git.run(ctx, r.dir, nil, "update-ref", "-m", "autarch: create workflow "+name, ref, baseCommit, ""); err != nil {
		return nil, fmt.Errorf("create workflow %s: create branch %s: %w", name, branch, err)
	}
	if err := r.addWorktree(ctx, path, branch); err != nil {
		// Roll back the branch we just made (only if it still points at base).
		_, _ = r.git.run(context.WithoutCancel(ctx), r.dir, nil, "update-ref", "-d", ref, baseCommit)
		return nil, fmt.Errorf("create workflow %s: %w", name, err)
	}
	return &Workflow{repo: r, Name: name, Branch: branch, Base: base, BaseCommit: baseCommit, Worktree: path, untracked: r.untrackedOf(path)}, nil
}

// ensureAbsent fails unless path does not exist or is an empty directory.
func ensureAbsent(path string) error {
	entries, err := os.ReadDir(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("worktree path %s exists and is not a directory", path)
	case len(entries) > 0:
		return fmt.Errorf("worktree path %s exists and is not empty: remove it or choose another workflow name", path)
	}
	return nil
}

func (r *Repo) addWorktree(ctx context.Context, path, branch string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("worktree directory: %w", err)
	}
	r.prepared.await(ctx)
	claimed := false
	err := r.refLock(ctx, func() error {
		if claimed = r.claimPrepared(ctx, path, branch); claimed {
			return nil
		}
		return r.registerWorktree(ctx, path, branch)
	})
	if err != nil || claimed {
		return err
	}
	return r.populateWorktree(ctx, path)
}

// OpenWorkflow opens an existing workflow (after a restart). base is the
// base the workflow was created from. A worktree whose folder disappeared is
// recreated on the workflow branch.
func (r *Repo) OpenWorkflow(ctx context.Context, name, base string) (*Workflow, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	if base == "" {
		return nil, fmt.Errorf("open workflow %s: the base branch or commit is required", name)
	}
	branch := WorkflowBranch(name)
	ref := "refs/heads/" + branch
	if ok, err := r.refExists(ctx, ref); err != nil {
		return nil, fmt.Errorf("open workflow %s: %w", name, err)
	} else if !ok {
		return nil, fmt.Errorf("open workflow %s: branch %s does not exist", name, branch)
	}
	baseCommit, err := r.mergeBase(ctx, base, ref)
	if err != nil {
		return nil, fmt.Errorf("open workflow %s: %w", name, err)
	}
	w := &Workflow{repo: r, Name: name, Branch: branch, Base: base, BaseCommit: baseCommit}
	path, err := r.findWorktree(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("open workflow %s: %w", name, err)
	}
	if path == "" {
		path = r.WorktreePath(name)
		if _, err := r.git.run(ctx, r.dir, nil, "worktree", "remove", "--force", path); err != nil && !strings.Contains(err.Error(), "is not a working tree") {
			return nil, fmt.Errorf("open workflow %s: drop stale worktree: %w", name, err)
		}
		if err := ensureAbsent(path); err != nil {
			return nil, fmt.Errorf("open workflow %s: %w", name, err)
		}
		if err := r.addWorktree(ctx, path, branch); err != nil {
			return nil, fmt.Errorf("open workflow %s: %w", name, err)
		}
	}
	w.Worktree, w.untracked = path, r.untrackedOf(path)
	return w, nil
}

// findWorktree returns the path of the live worktree holding the workflow
// branch or one of its pulse branches, or "".
func (r *Repo) findWorktree(ctx context.Context, name string) (string, error) {
	list, err := r.Worktrees(ctx)
	if err != nil {
		return "", err
	}
	wfRef := "refs/heads/" + WorkflowBranch(name)
	pulseRefs := "refs/heads/" + PulsePrefix + name + "/"
	want := r.WorktreePath(name)
	for _, w := range list {
		if w.Prunable || isUnder(w.Path, r.pulseTreeDir(name)) {
			continue
		}
		if w.Branch == wfRef || strings.HasPrefix(w.Branch, pulseRefs) || (w.Detached && samePath(w.Path, want)) {
			if _, err := os.Stat(w.Path); err == nil {
				return w.Path, nil
			}
		}
	}
	return "", nil
}

// mergeBase is the best common ancestor of two revisions.
func (r *Repo) mergeBase(ctx context.Context, a, b string) (string, error) {
	ca, err := r.ResolveCommit(ctx, a)
	if err != nil {
		return "", err
	}
	out, err := r.git.text(ctx, r.dir, "merge-base", ca, b)
	if err != nil {
		if exitCode(err) == 1 {
			return "", fmt.Errorf("%s and %s have no common history", a, b)
		}
		return "", fmt.Errorf("merge-base %s %s: %w", a, b, err)
	}
	return out, nil
}

// Workflows lists the names of the workflows that have a branch.
func (r *Repo) Workflows(ctx context.Context) ([]string, error) {
	refs, err := r.refsUnder(ctx, "refs/heads/"+WorkflowPrefix)
	if err != nil {
		return nil, fmt.Errorf("list workflows: %w", err)
	}
	names := make([]string, 0, len(refs))
	for _, ref := range refs {
		names = append(names, strings.TrimPrefix(ref, "refs/heads/"+WorkflowPrefix))
	}
	return names, nil
}

// RemoveOptions says what RemoveWorkflow deletes besides the worktree.
type RemoveOptions struct {
	// DeleteBranch deletes the workflow branch autarch/<name>.
	DeleteBranch bool
	// DeletePulseBranches deletes the kept pulse branches
	// autarch-pulse/<name>/*.
	DeletePulseBranches bool
}

// RemoveWorkflow removes the workflow's worktree (with its untracked and
// ignored files) and, as requested, its branches. A worktree the user made
// for one of these branches outside WorktreeRoot is left alone; deleting a
// branch checked out there is refused.
func (r *Repo) RemoveWorkflow(ctx context.Context, name string, opts RemoveOptions) error {
	if err := ValidateName(name); err != nil {
		return err
	}
	wfRef := "refs/heads/" + WorkflowBranch(name)
	pulseRefs := "refs/heads/" + PulsePrefix + name + "/"
	list, err := r.Worktrees(ctx)
	if err != nil {
		return fmt.Errorf("remove workflow %s: %w", name, err)
	}
	want := r.WorktreePath(name)
	held := map[string]string{} // branch → foreign worktree holding it
	for _, w := range list {
		ours := samePath(w.Path, want) || isUnder(w.Path, r.worktreeRoot) && (w.Branch == wfRef || strings.HasPrefix(w.Branch, pulseRefs))
		if !ours {
			if w.Branch != "" {
				held[w.Branch] = w.Path
			}
			continue
		}
		if r.retireWorktree(ctx, w.Path) {
			continue // its files wait to be recycled (recycle.go)
		}
		if err := r.removeWorktree(ctx, w.Path); err != nil {
			return fmt.Errorf("remove workflow %s: %w", name, err)
		}
	}
	var del []string
	if opts.DeleteBranch {
		if ok, err := r.refExists(ctx, wfRef); err != nil {
			return fmt.Errorf("remove workflow %s: %w", name, err)
		} else if ok {
			del = append(del, wfRef)
		}
	}
	if opts.DeletePulseBranches {
		refs, err := r.refsUnder(ctx, pulseRefs)
		if err != nil {
			return fmt.Errorf("remove workflow %s: %w", name, err)
		}
		del = append(del, refs...)
	}
	for _, ref := range del {
		if at, ok := held[ref]; ok {
			return fmt.Errorf("remove workflow %s: branch %s is checked out in %s; switch that worktree to another branch first", name, strings.TrimPrefix(ref, "refs/heads/"), at)
		}
	}
	return r.deleteRefs(ctx, "autarch: remove workflow "+name, del)
}

// deleteRefs deletes refs in one transaction.
func (r *Repo) deleteRefs(ctx context.Context, msg string, refs []string) error {
	if len(refs) == 0 {
		return nil
	}
	var b strings.Builder
	for _, ref := range refs {
		b.WriteString("delete " + ref + "\n")
	}
	if _, err := r.git.run(ctx, r.dir, strings.NewReader(b.String()), "update-ref", "-m", msg, "--stdin"); err != nil {
		return fmt.Errorf("delete branches: %w", err)
	}
	return nil
}

func isUnder(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Head is the commit at the tip of the workflow branch.
func (w *Workflow) Head(ctx context.Context) (string, error) {
	out, err := w.repo.git.text(ctx, w.repo.dir, "rev-parse", "--verify", "refs/heads/"+w.Branch)
	if err != nil {
		return "", fmt.Errorf("workflow %s head: %w", w.Name, err)
	}
	return out, nil
}
