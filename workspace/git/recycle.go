package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Recycled worktrees (issue 35). Checking out a big tree writes every
// file: 23k files took 8–60 s on a loaded 2-core machine, and a workflow
// whose model answers at once waits for all of it, prepared or not. When
// a workflow's worktree is removed, its files are therefore kept as a
// spent tree (up to maxSpent per repository) instead of being deleted,
// and the next PrepareWorktrees of any process restores one to a fresh
// checkout of the commit it needs: it writes only the files that differ.
//
// A spent tree was written by agents: nothing in it is trusted. It lives
// under <worktree root>/.prepared/spent-<pid>-<seq>/, inside Autarch's
// state, which no sandboxed command sees, and holds:
//
//   - tree/: the worktree's files, its folder renamed there whole when the
//     workflow ended (the worktree itself is unregistered as before);
//   - index: a copy of the worktree's index, which only our git wrote
//     (the admin directory is read-only to commands). Its stat data is
//     what vouches for the files nobody changed;
//   - fresh: the change time of the worktree's fresh marker (fresh.go):
//     when git last made it a fresh checkout, before any command ran in
//     it. Every file changed since — by a command, an editor or git
//     itself — has a change time at or after it, which nobody can set
//     back. A worktree without a marker is not kept;
//   - complete: written last; a spent tree without it is deleted.
//
// Restoring one (restoreSpent) registers a new worktree at the commit,
// moves the files in, installs the index and then makes the tree provably
// identical to a fresh checkout, or gives it up (freshen), in one walk of
// the tree:
//
//  1. git read-tree --reset makes the index the commit's, keeping the
//     stat data of the entries whose object and mode did not change (no
//     file is read); the index must then hold nothing but plain files,
//     symlinks and executables at stage 0, with no assume-unchanged,
//     skip-worktree or intent-to-add flag;
//  2. a walk of the tree (each entry stat-ed through its directory's
//     descriptor, no symlink followed, in parallel) checks the directories
//     (ours, 0777 less the umask), the .git file naming the new admin
//     directory (which holds only what git worktree add wrote and the
//     index), and every file: it is stale — written again — when missing,
//     of another type, mode (0666 or 0777 less the umask) or link count,
//     when its stat data is not what the index recorded, to the
//     nanosecond, or when it changed at or after the tree was last fresh,
//     whatever its other stat data says;
//  3. the paths the index does not hold are removed: the files (and their
//     folders) the retired commit tracked directly; anything else (an
//     untracked or ignored file, a nested repository) by git clean -ffdx,
//     and the walk runs again (clean, a walk of the whole tree itself,
//     runs only then);
//  4. the stale files, however many, are removed and written again by git
//     checkout-index, which records their stat data, and the tree is
//     marked fresh.
//
// Any doubt or failure removes the tree, and a fresh worktree is checked
// out instead.

// maxSpent is how many spent trees a repository keeps (each is a copy of
// the work tree on disk), and staleSpent how long one waits to be taken
// before the next PrepareWorktrees deletes it.
const (
	maxSpent   = 1
	staleSpent = 24 * time.Hour
)

// spentPrefix names the spent trees in the prepared directory.
const spentPrefix = "spent-"

// spentTrees are the complete spent trees, oldest first (by name: the
// sequence of one process; the order between processes does not matter).
func (r *Repo) spentTrees() []string {
	entries, err := os.ReadDir(r.preparedDir())
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		p := filepath.Join(r.preparedDir(), e.Name())
		if !e.IsDir() || !strings.HasPrefix(e.Name(), spentPrefix) {
			continue
		}
		fi, err := os.Lstat(filepath.Join(p, "complete"))
		if err == nil && time.Since(fi.ModTime()) > staleSpent && os.Remove(filepath.Join(p, "complete")) == nil {
			r.discardSpent(p)
			continue
		}
		if err == nil {
			out = append(out, p)
			continue
		}
		// Incomplete: being retired or restored (seconds), or left by a
		// process killed doing so.
		if di, err := os.Lstat(p); err == nil && time.Since(di.ModTime()) > time.Hour {
			_ = os.RemoveAll(p)
		}
	}
	slices.Sort(out)
	return out
}

// retireWorktree keeps the files of the worktree at path (under the
// worktree root, about to be removed) as a spent tree and removes the
// worktree and its registration; false when it did not (no room, not one
// of ours, or a step failed: the caller removes it the ordinary way).
func (r *Repo) retireWorktree(ctx context.Context, path string) bool {
	r.prepared.watches.drop(path) // its restore's watch, when nobody took it
	if r.worktreeRoot == "" || !isUnder(path, r.worktreeRoot) || isUnder(path, r.preparedDir()) || isUnder(path, r.trashDir()) {
		return false
	}
	if len(r.spentTrees()) >= maxSpent {
		return false
	}
	loc, err := r.git.locate(path)
	if err != nil || loc.gitDir == "" || loc.gitDir == r.commonDir || !samePath(loc.top, path) {
		return false
	}
	if _, err := os.Lstat(filepath.Join(loc.gitDir, "index.lock")); err == nil {
		return false // a git command is writing it
	}
	since, ok := freshSince(loc.gitDir)
	if !ok {
		return false // nobody can tell which of its files changed
	}
	index, err := os.ReadFile(filepath.Join(loc.gitDir, "index"))
	if err != nil {
		return false
	}
	spent := filepath.Join(r.preparedDir(), spentPrefix+filepath.Base(r.prepared.next(r.preparedDir())))
	tree := filepath.Join(spent, "tree")
	if err := os.MkdirAll(spent, 0o700); err != nil {
		return false
	}
	if err := os.WriteFile(filepath.Join(spent, "index"), index, 0o600); err != nil {
		_ = os.RemoveAll(spent)
		return false
	}
	if err := os.WriteFile(filepath.Join(spent, spentFresh), formatSince(since), 0o600); err != nil {
		_ = os.RemoveAll(spent)
		return false
	}
	if !setAside(path, tree) {
		_ = os.RemoveAll(spent)
		return false
	}
	if _, err := r.git.run(ctx, r.dir, nil, "worktree", "remove", "--force", path); err != nil {
		moveIn(tree, path)
		_ = os.RemoveAll(spent)
		return false
	}
	if err := os.WriteFile(filepath.Join(spent, "complete"), nil, 0o600); err != nil {
		go func() { _ = os.RemoveAll(spent) }()
	}
	return true
}

// setAside renames the worktree folder dir to dest (which does not
// exist) whole and puts dir back holding only its .git file; false:
// nothing moved. Renaming the folder whole keeps its entries' change
// times — renaming a file sets its own, and git, comparing change times
// when the tree is restored, rewrote every top-level file that a second
// had passed for.
func setAside(dir, dest string) bool {
	if err := os.Rename(dir, dest); err != nil {
		return false
	}
	if os.Mkdir(dir, 0o755) == nil {
		if os.Rename(filepath.Join(dest, ".git"), filepath.Join(dir, ".git")) == nil {
			return true
		}
		_ = os.Remove(dir)
	}
	_ = os.Rename(dest, dir)
	return false
}

// moveIn renames the folder tree (no .git in it) to dir, which holds
// nothing but its .git file, whole, keeping dir's .git file: setAside
// undone, or a spent tree moved into a new worktree. false: nothing moved.
func moveIn(tree, dir string) bool {
	if _, err := os.Lstat(filepath.Join(tree, ".git")); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if os.Rename(filepath.Join(dir, ".git"), filepath.Join(tree, ".git")) != nil {
		return false
	}
	if os.Remove(dir) == nil {
		if os.Rename(tree, dir) == nil {
			return true
		}
		_ = os.Mkdir(dir, 0o755)
	}
	_ = os.Rename(filepath.Join(tree, ".git"), filepath.Join(dir, ".git"))
	return false
}

// moveEntries renames the entries of dir but its .git file into dest;
// false (and nothing moved) when one could not be.
func moveEntries(dir, dest string) ([]string, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	var moved []string
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		if err := os.Rename(filepath.Join(dir, e.Name()), filepath.Join(dest, e.Name())); err != nil {
			moveBack(dest, dir, moved)
			return nil, false
		}
		moved = append(moved, e.Name())
	}
	return moved, true
}

// moveBack returns the entries moveEntries moved from dir into dest.
func moveBack(dest, dir string, moved []string) {
	for _, name := range moved {
		_ = os.Rename(filepath.Join(dest, name), filepath.Join(dir, name))
	}
}

// discardSpent deletes a spent tree this process claimed (its complete
// marker removed), in the background from the trash.
func (r *Repo) discardSpent(spent string) {
	trash := r.prepared.next(r.trashDir())
	if os.MkdirAll(filepath.Dir(trash), 0o700) == nil && os.Rename(spent, trash) == nil {
		go func() { _ = os.RemoveAll(trash) }() // what is left is swept later
		return
	}
	_ = os.RemoveAll(spent)
}

// errNoSpent: no spent tree is left to restore.
var errNoSpent = errors.New("no spent tree")

// adoptSpent restores a spent tree as a prepared worktree for owner at
// commit; false when none is left (each that fails is removed).
func (r *Repo) adoptSpent(ctx context.Context, owner, commit string) bool {
	for {
		spent := r.spentTrees()
		if len(spent) == 0 {
			return false
		}
		path := r.prepared.next(r.preparedDir())
		t := preparedTree{path: path, owner: owner, watch: r.prepared.watches.start(path)}
		r.prepared.begin()
		handed, err := r.restoreSpent(ctx, spent[0], path, commit, t.watch)
		if !handed {
			closeWatch(t.watch)
			t.watch = nil
		}
		r.prepared.end(t, err == nil)
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
	}
}

// restoreSpent claims the spent tree (under the ref lock: one process
// takes it), registers a worktree at path detached at commit holding its
// files, and makes it a fresh checkout; on failure the worktree and the
// spent tree are removed. watch, when not nil, follows the restore's walk
// (freshen); handed: it was given what the walk found.
func (r *Repo) restoreSpent(ctx context.Context, spent, path, commit string, watch RestoreWatch) (handed bool, _ error) {
	registered, claimed := false, false
	var index []byte
	var since unix.Timespec
	var ok bool
	err := r.refLock(ctx, func() error {
		if err := os.Remove(filepath.Join(spent, "complete")); err != nil {
			return errNoSpent // another process took it
		}
		claimed = true
		if _, err := r.git.run(context.WithoutCancel(ctx), r.dir, nil, "worktree", "add", "--quiet", "--detach", "--no-checkout", path, commit); err != nil {
			r.dropWorktree(context.WithoutCancel(ctx), path)
			return err
		}
		registered = true
		loc, err := r.git.locate(path)
		if err != nil || !samePath(loc.top, path) || loc.gitDir == r.commonDir {
			return fmt.Errorf("locate the new worktree: %v", err)
		}
		if index, err = os.ReadFile(filepath.Join(spent, "index")); err != nil {
			return err
		}
		marked, err := os.ReadFile(filepath.Join(spent, spentFresh))
		if since, ok = parseSince(marked); err != nil || !ok {
			return fmt.Errorf("the spent tree does not say when it was fresh (%v)", err)
		}
		if err := writeAtomic(filepath.Join(loc.gitDir, "index"), index); err != nil {
			return err
		}
		if !moveIn(filepath.Join(spent, "tree"), path) {
			return errors.New("move the spent files in")
		}
		return nil
	})
	if !claimed {
		return false, fmt.Errorf("restore a spent worktree: %w", err)
	}
	r.discardSpent(spent)
	if err == nil {
		handed, err = r.freshen(ctx, path, since, index, watch)
	}
	if err != nil && registered {
		ctx := context.WithoutCancel(ctx)
		_ = r.refLock(ctx, func() error { r.dropWorktree(ctx, path); return nil })
	}
	if err != nil {
		return false, fmt.Errorf("restore a spent worktree: %w", err)
	}
	return handed, nil
}

// freshCheck are settings that make git compare every stat field it
// records, whatever the repository's configuration says.
var freshCheck = []string{"-c", "core.trustctime=true", "-c", "core.checkStat=default", "-c", "core.ignoreStat=false", "-c", "core.symlinks=true", "-c", "core.filemode=true"}

// freshen makes the worktree at path, holding a spent tree's files and
// prev, the index they were retired with, identical to a fresh checkout of
// its HEAD, or fails (see the comment at the top of this file). since is
// when the tree was last made fresh: a file changed at or after it is
// written again. watch, when not nil, watches the walk's directories
// before they are read and is handed what the walk found (handed), unless
// the tree held what only git clean removes (a second walk).
func (r *Repo) freshen(ctx context.Context, path string, since unix.Timespec, prev []byte, watch RestoreWatch) (handed bool, _ error) {
	loc, err := r.git.locate(path)
	if err != nil {
		return false, err
	}
	// The index of HEAD, keeping the stat data of the entries whose
	// object and mode are prev's: the files those vouch for need not be
	// written. It reads no file of the tree (no -u): the walk below is the
	// only pass over it (issue 35: reset --hard and the walk stat-ed a
	// 23k-file tree twice).
	if _, err := r.git.run(ctx, path, nil, append(slices.Clone(freshCheck), "read-tree", "--reset", "HEAD")...); err != nil {
		return false, err
	}
	want, err := freshIndex(filepath.Join(loc.gitDir, "index"))
	if err != nil {
		return false, err
	}
	walk, err := verifyFreshWatched(path, loc.gitDir, want, since, watch)
	stale, extra := walk.stale, walk.extra
	if err != nil {
		return false, err
	}
	if len(extra) > 0 {
		// The files prev tracked and HEAD does not are removed (what
		// reset --hard would do); anything else (untracked or ignored
		// files, nested repositories) is git clean's, and the walk then
		// checks again. git clean walks the whole tree too: it runs only
		// when the walk finds such a path.
		if leftovers(extra, prev) {
			for _, e := range extra {
				if err := os.RemoveAll(filepath.Join(path, filepath.FromSlash(e.rel))); err != nil {
					return false, err
				}
			}
		} else {
			if _, err := r.git.run(ctx, path, nil, append(slices.Clone(freshCheck), "clean", "-ffdxq")...); err != nil {
				return false, err
			}
			watch = nil // the second walk is not watched: nothing is handed over
			if walk, err = verifyFreshWatched(path, loc.gitDir, want, since, nil); err != nil {
				return false, err
			}
			if stale, extra = walk.stale, walk.extra; len(extra) > 0 {
				return false, fmt.Errorf("%s: %w", extra[0].rel, errUntracked)
			}
		}
	}
	// The walk compared every file with the stat data the index recorded,
	// to the nanosecond, and with the moment the tree was last made fresh
	// (a change time cannot be set back): the files it could not vouch
	// for, however many, are written again from the index, which records
	// their new stat data.
	if len(stale) > 0 {
		// Removed first: checkout-index leaves a file alone when its stat
		// data, compared to the second, is what the index recorded.
		var names strings.Builder
		for _, p := range stale {
			if err := os.Remove(filepath.Join(path, filepath.FromSlash(p))); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return false, fmt.Errorf("write back the files that changed: %w", err)
			}
			names.WriteString(p + "\x00")
		}
		if _, err := r.git.run(ctx, path, strings.NewReader(names.String()), append(slices.Clone(freshCheck), "checkout-index", "--force", "-u", "-z", "--stdin")...); err != nil {
			return false, fmt.Errorf("write back the files that changed: %w", err)
		}
	}
	_ = markFresh(loc.gitDir) // unmarked, it is used once and not recycled
	if watch == nil {
		return false, nil
	}
	watch.Walked(walk.files(want))
	return true, nil
}

// leftovers reports whether every path of extra is one the index prev
// tracked (a file, or a folder of its files): what the commit the spent
// tree was retired at had and HEAD has not.
func leftovers(extra []extraPath, prev []byte) bool {
	files, dirs := map[string]bool{}, map[string]bool{}
	if !readIndexData(prev, func(e *indexEntry) {
		files[e.path] = true
		addDirs(dirs, e.path)
	}) {
		return false
	}
	for _, e := range extra {
		if e.dir && !dirs[e.rel] || !e.dir && !files[e.rel] {
			return false
		}
	}
	return true
}

// errUntracked: the tree holds a path the index does not (git clean
// removes it).
var errUntracked = errors.New("a path the index does not hold")

// adminFiles are what git worktree add --no-checkout writes into a new
// worktree's admin directory, plus the index we put there.
var adminFiles = []string{"HEAD", "commondir", "gitdir", "index", "ORIG_HEAD", "logs"}

// umask is the process's file mode creation mask, read without changing
// it (/proc/self/status); 022 when unknown.
func umask() fs.FileMode {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0o022
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("Umask:")); ok {
			if n, err := strconv.ParseUint(strings.TrimSpace(string(v)), 8, 32); err == nil {
				return fs.FileMode(n)
			}
		}
	}
	return 0o022
}
