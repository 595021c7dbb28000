package git

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// TreeJournal follows the changes of a work tree (tools.MaskState, whose
// tree watch decides the secret masks). since, from the moment Mark was
// called, reports the paths (relative to the top, slash-separated) that
// anything created, wrote, moved, deleted or changed the mode of, a
// directory standing for everything below it; false when it cannot say.
type TreeJournal interface {
	Mark() (since func() ([]string, bool))
}

// untrackedState is what a workflow's last listing of untracked files
// found, and the journal of the tree's changes since it began (issue 35:
// the checkpoint and the gates' changed paths each walked a 23k-file tree
// to find the one file a pulse wrote). The next listing asks git about
// those paths and what the journal names only, when nothing else can
// have made a file untracked and not ignored:
//
//   - the journal followed the whole tree since the last listing began
//     (a new file, a file moved in, a new folder, a file written by any
//     process, inside or outside the sandbox, is named in it);
//   - the worktree's index holds the entries the last listing saw, or
//     those our own staging wrote after it (a file leaves the index only
//     through git; a refresh of stat data does not count, indexPaths);
//   - no .gitignore file changed, nor the ignore files outside the tree
//     (the repository's info/exclude, the user's excludes file).
//
// On any doubt the whole tree is listed, as before.
type untrackedState struct {
	mu      sync.Mutex
	journal TreeJournal
	// paths are the untracked, not ignored paths the last listing found
	// (the whole tree, nothing excluded); since follows the tree from
	// just before it (nil: no listing to build on).
	paths []string
	since func() ([]string, bool)
	// index and ignore identify the worktree's index entries and the
	// ignore files outside the tree as that listing saw them.
	index, ignore string
	full          int // listings that walked the whole tree (for tests)

	// tmu guards what the passes over the tracked files build on
	// (trackedpass.go), apart from mu, which a listing holds while git
	// walks the tree.
	tmu     sync.Mutex
	tj      TrackedJournal
	tracked *trackedBase
	scans   [2]int // full and narrowed passes over the tracked files (for tests)
}

// untrackedStates are the untracked states of a repository's work trees
// by path: the workflow objects a run opens for one worktree (preflight,
// then pulses) share one.
type untrackedStates struct {
	mu     sync.Mutex
	byTree map[string]*untrackedState
}

// untrackedOf is the untracked state of the work tree at path.
func (r *Repo) untrackedOf(path string) *untrackedState {
	if r.trees == nil {
		return &untrackedState{}
	}
	r.trees.mu.Lock()
	defer r.trees.mu.Unlock()
	if r.trees.byTree == nil {
		r.trees.byTree = map[string]*untrackedState{}
	}
	path = filepath.Clean(path)
	if r.trees.byTree[path] == nil {
		r.trees.byTree[path] = &untrackedState{}
	}
	return r.trees.byTree[path]
}

// maxNarrowed is the most paths a narrowed listing names; past it git
// walks the whole tree, which costs about the same.
const maxNarrowed = 512

// FollowChanges lets the workflow's listings of untracked files (the
// checkpoint's staging, ChangedPaths) look only at what j reports changed
// since the last listing, where it can (untrackedState). j follows the
// worktree's whole tree.
func (w *Workflow) FollowChanges(j TreeJournal) {
	u := w.untracked
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.journal != j {
		u.journal, u.paths, u.since = j, nil, nil
	}
	tj, _ := j.(TrackedJournal)
	u.tmu.Lock()
	defer u.tmu.Unlock()
	if u.tj != tj || tj == nil {
		u.tj, u.tracked = tj, nil
	}
}

// seeded begins the untracked state from a status (git status
// --untracked-files=normal, listing the same files, a folder whose files
// are all untracked as "dir/"): take it before git runs; done records
// the status's untracked paths (ok false: it failed).
func (w *Workflow) seeded(ctx context.Context) (done func(untracked []string, ok bool)) {
	u := w.untracked
	u.mu.Lock()
	j := u.journal
	u.mu.Unlock()
	if j == nil {
		return func([]string, bool) {}
	}
	mark, index, ignore := j.Mark(), w.indexStamp(ctx), w.repo.ignoreStamp()
	return func(untracked []string, ok bool) {
		u.mu.Lock()
		defer u.mu.Unlock()
		if !ok || index == "" || u.journal != j {
			return
		}
		u.paths, u.since, u.index, u.ignore = untracked, mark, index, ignore
	}
}

// UntrackedWalks is how many of the workflow's listings of untracked
// files walked the whole tree (for tests).
func (w *Workflow) UntrackedWalks() int {
	w.untracked.mu.Lock()
	defer w.untracked.mu.Unlock()
	return w.untracked.full
}

// ChangedPaths is Repo.ChangedPaths of the workflow's worktree against its
// branch: the files whose content differs from the branch's tip, and the
// untracked files that are not ignored (listed as FollowChanges allows).
func (w *Workflow) ChangedPaths(ctx context.Context) ([]string, error) {
	if out, ok, err := w.changedPathsScanned(ctx); ok {
		return out, err
	}
	out, err := w.repo.changedPaths(ctx, w.Worktree, w.Branch, w.listUntracked)
	if err != nil {
		return nil, err
	}
	// An edit an agent's .gitattributes convert away is a change
	// (attributes.go).
	raw, err := w.unconverted(ctx, nil, true, false)
	if err != nil || len(raw) == 0 {
		return out, err
	}
	for _, e := range raw {
		out = append(out, e.path)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// listUntracked lists the untracked, not ignored paths of the worktree
// (git ls-files --others --exclude-standard, a nested repository as
// "dir/"), from the last listing and what changed since where it can.
func (w *Workflow) listUntracked(ctx context.Context) ([]string, error) {
	u := w.untracked
	u.mu.Lock()
	defer u.mu.Unlock()
	var mark func() ([]string, bool)
	if u.journal != nil {
		mark = u.journal.Mark() // before git looks: what changes meanwhile is in the next journal
	}
	index, ignore := w.indexStamp(ctx), w.repo.ignoreStamp()
	specs, narrow := u.narrowed(index, ignore)
	var out []string
	var err error
	switch {
	case narrow && len(specs) == 0:
	case narrow:
		out, err = w.repo.untracked(ctx, w.Worktree, specs, nil)
	default:
		u.full++
		out, err = w.repo.untracked(ctx, w.Worktree, nil, nil)
	}
	if err != nil || index == "" {
		u.since = nil
		return out, err
	}
	u.paths, u.since, u.index, u.ignore = out, mark, index, ignore
	return out, nil
}

// narrowed are the paths a listing needs to ask git about (the last
// listing's and what changed since), false when the whole tree must be
// listed.
func (u *untrackedState) narrowed(index, ignore string) ([]string, bool) {
	if u.since == nil || index == "" || ignore == "" || index != u.index || ignore != u.ignore {
		return nil, false
	}
	changed, ok := u.since()
	if !ok || len(changed)+len(u.paths) > maxNarrowed {
		return nil, false
	}
	set := map[string]bool{}
	for _, p := range append(changed, u.paths...) {
		p = strings.TrimSuffix(p, "/")
		if path.Base(p) == ".gitignore" {
			return nil, false // what it ignores may have changed anywhere below it
		}
		if p != "" && p != "." {
			set[p] = true
		}
	}
	specs := make([]string, 0, len(set))
	for p := range set {
		specs = append(specs, p)
	}
	slices.Sort(specs)
	return specs, true
}

// staged notes that our own staging rewrote the worktree's index after the
// last listing (only adding what it listed); left is what that staging
// left out (excluded): the next listing then walks the whole tree.
func (w *Workflow) staged(ctx context.Context, left []Excluded) {
	u := w.untracked
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(left) > 0 || u.since == nil {
		u.since = nil
		return
	}
	u.index = w.indexStamp(ctx)
}

// untrackedBut is listUntracked without the paths under exclude (the
// same as git's exclude pathspecs: a path or anything below it).
func (w *Workflow) untrackedBut(ctx context.Context, exclude []string) ([]string, error) {
	all, err := w.listUntracked(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(slices.Clone(all), func(p string) bool {
		return slices.ContainsFunc(exclude, func(e string) bool {
			return isUnderSlash(strings.TrimSuffix(p, "/"), strings.TrimSuffix(e, "/"))
		})
	}), nil
}

// indexStamp identifies the entries of the worktree's index (indexPaths);
// "" when unknown.
func (w *Workflow) indexStamp(ctx context.Context) string {
	dir, err := w.adminPath(ctx)
	if err != nil {
		return ""
	}
	d, _ := w.repo.indexDigest(filepath.Join(dir, "index"))
	return d.paths
}

// ignoreStamp identifies the versions of the ignore files outside the
// work trees: the repository's info/exclude, its config (which may name
// another excludes file) and the user's excludes file; "" when one cannot
// be read.
func (r *Repo) ignoreStamp() string {
	files := []string{filepath.Join(r.CommonDir(), "info", "exclude"), filepath.Join(r.CommonDir(), "config")}
	excludes := ""
	for i := 0; i+1 < len(r.git.user); i += 2 {
		if k, v, ok := strings.Cut(r.git.user[i+1], "="); ok && strings.EqualFold(k, "core.excludesfile") {
			excludes = v
		}
	}
	if excludes == "" {
		if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
			excludes = filepath.Join(x, "git", "ignore")
		} else if h, err := os.UserHomeDir(); err == nil {
			excludes = filepath.Join(h, ".config", "git", "ignore")
		}
	} else if rest, ok := strings.CutPrefix(excludes, "~/"); ok {
		if h, err := os.UserHomeDir(); err == nil {
			excludes = filepath.Join(h, rest)
		}
	}
	if excludes != "" {
		files = append(files, excludes)
	}
	var b strings.Builder
	for _, f := range files {
		st := fileStamp(f)
		if st == "" {
			return ""
		}
		b.WriteString(st + "\n")
	}
	return b.String()
}

// fileStamp identifies a version of the file at p (following a
// symlink): "absent" when it does not exist, "" when it cannot be read.
func fileStamp(p string) string {
	var st syscall.Stat_t
	err := syscall.Stat(p, &st)
	if err == syscall.ENOENT {
		return p + " absent"
	}
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s %d %d %d %d.%d %d.%d", p, st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec)
}
