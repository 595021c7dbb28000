package git

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Prepared worktrees (issue 35). Checking out a big tree costs what
// writing every file costs: 45k files (four copies of GOROOT/src) took
// 17–65 s on a loaded 2-core machine even with parallel checkout, and a
// parallel pulse paid it again for its own worktree. PrepareWorktrees
// pays it in the background, as soon as a workflow starts (its scoping,
// research and plan take minutes): it checks fresh worktrees out, detached
// at a commit, under <worktree root>/.prepared. Giving a workflow or a
// pulse its worktree then takes one of them (claimPrepared): git worktree
// move to the real path, and git checkout of the branch there, which
// writes only the files that differ between the prepared commit and the
// branch.
//
// A prepared worktree is handed out once and only if it is FRESH: made by
// this process with the hardened git of this package, complete, and never
// given to anyone before. A used worktree is never handed out as it is (an
// agent may have planted ignored files or per-worktree configuration in
// it): its files are recycled only through recycle.go, which makes them
// provably identical to a fresh checkout or gives them up. One left by
// another process is removed (it may be incomplete; nobody vouches for it). The prepared folders live under the
// worktree root, inside Autarch's state, which no sandboxed command can
// see or write; nothing about the sandbox, the masks or the ref lock
// changes — the registration and the move run under the ref lock, the
// checkout of files (the slow part) outside it.

// preparedTree is a prepared worktree and who asked for it; watch follows
// it since its restore's walk (a restored spent tree's, when asked).
type preparedTree struct {
	path, owner string
	watch       RestoreWatch
}

// preparedPool is a Repo's fresh prepared worktrees.
type preparedPool struct {
	mu     sync.Mutex
	seq    int
	ready  []preparedTree // complete, never handed out, made by this process
	making int            // being checked out now
	// changed is closed (and replaced) whenever ready or making change.
	changed chan struct{}
	watches restoreWatches
}

// notify wakes the waiters of await. Under mu.
func (p *preparedPool) notify() {
	if p.changed != nil {
		close(p.changed)
	}
	p.changed = make(chan struct{})
}

// await waits while no prepared worktree is ready but one is being
// checked out: the rest of its checkout is shorter than a whole new one.
func (p *preparedPool) await(ctx context.Context) {
	for {
		p.mu.Lock()
		if len(p.ready) > 0 || p.making == 0 {
			p.mu.Unlock()
			return
		}
		if p.changed == nil {
			p.changed = make(chan struct{})
		}
		ch := p.changed
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// begin and end bracket the checkout of one prepared worktree; end adds
// it to ready when it is complete.
func (p *preparedPool) begin() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.making++
	p.notify()
}

func (p *preparedPool) end(t preparedTree, complete bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.making--
	if complete {
		p.ready = append(p.ready, t)
	}
	p.notify()
}

// take removes and returns a fresh prepared worktree; false: none.
func (p *preparedPool) take() (preparedTree, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ready) == 0 {
		return preparedTree{}, false
	}
	t := p.ready[0]
	p.ready = p.ready[1:]
	p.notify()
	return t, true
}

// count is how many are ready for owner ("": for anyone).
func (p *preparedPool) count(owner string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, t := range p.ready {
		if owner == "" || t.owner == owner {
			n++
		}
	}
	return n
}

// takeOwned removes and returns owner's ready worktrees.
func (p *preparedPool) takeOwned(owner string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var paths []string
	kept := p.ready[:0]
	for _, t := range p.ready {
		if t.owner == owner {
			paths = append(paths, t.path)
			closeWatch(t.watch)
		} else {
			kept = append(kept, t)
		}
	}
	p.ready = kept
	p.notify()
	return paths
}

func (p *preparedPool) has(path string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.ready {
		if r.path == path {
			return true
		}
	}
	return false
}

// next names the next prepared worktree of this process: <pid>-<seq>.
func (p *preparedPool) next(dir string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seq++
	return filepath.Join(dir, strconv.Itoa(os.Getpid())+"-"+strconv.Itoa(p.seq))
}

// preparedDir holds the prepared worktrees ("." starts no workflow name,
// so it is never a workflow's worktree).
func (r *Repo) preparedDir() string { return filepath.Join(r.worktreeRoot, ".prepared") }

// PreparedWorktrees is how many fresh prepared worktrees wait to be taken.
func (r *Repo) PreparedWorktrees() int { return r.prepared.count("") }

// PrepareWorktrees makes sure n fresh worktrees prepared for owner (a
// workflow's name), checked out detached at rev, wait to be taken by the
// next workflow or pulse worktrees this Repo creates (anyone's may take
// them). It returns when they are ready (call it in the background) or ctx
// ends (the one being made is removed). Prepared worktrees other processes
// left behind are removed first. DropPreparedWorktrees removes what owner
// did not use.
func (r *Repo) PrepareWorktrees(ctx context.Context, owner, rev string, n int) error {
	commit, err := r.ResolveCommit(ctx, rev)
	if err != nil {
		return fmt.Errorf("prepare worktrees: %w", err)
	}
	if err := r.dropOrphanedPrepared(ctx); err != nil {
		return err
	}
	for r.prepared.count(owner) < n && r.adoptSpent(ctx, owner, commit) {
	}
	for r.prepared.count(owner) < n {
		if err := r.prepareOne(ctx, owner, commit); err != nil {
			return err
		}
	}
	r.sweepTrash() // after the checkouts, which a run waits for
	return nil
}

// prepareOne registers a worktree without files (under the ref lock: a
// few milliseconds), then checks its files out (outside it).
func (r *Repo) prepareOne(ctx context.Context, owner, commit string) error {
	path := r.prepared.next(r.preparedDir())
	t := preparedTree{path: path, owner: owner}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("prepare worktree: %w", err)
	}
	err := r.refLock(ctx, func() error {
		// Not cut short: a registration killed half-way leaves an admin
		// directory every later worktree command trips over.
		_, err := r.git.run(context.WithoutCancel(ctx), r.dir, nil, "worktree", "add", "--quiet", "--detach", "--no-checkout", path, commit)
		if err != nil {
			r.dropWorktree(context.WithoutCancel(ctx), path)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("prepare worktree %s: %w", path, err)
	}
	r.prepared.begin()
	if _, err := r.git.run(ctx, path, nil, "reset", "--hard", "--quiet"); err != nil {
		r.prepared.end(t, false) // before the ref lock: a waiter may hold it
		ctx := context.WithoutCancel(ctx)
		_ = r.refLock(ctx, func() error { r.dropWorktree(ctx, path); return nil })
		return fmt.Errorf("prepare worktree %s: check out %.12s: %w", path, commit, err)
	}
	r.markTreeFresh(path)
	r.prepared.end(t, true)
	return nil
}

// DropPreparedWorktrees removes the prepared worktrees made for owner that
// nobody took (a finished or waiting run's).
func (r *Repo) DropPreparedWorktrees(ctx context.Context, owner string) error {
	paths := r.prepared.takeOwned(owner)
	if len(paths) == 0 {
		return nil
	}
	return r.refLock(ctx, func() error {
		for _, path := range paths {
			r.dropWorktree(ctx, path)
		}
		return nil
	})
}

// claimPrepared gives path a fresh prepared worktree checked out on
// branch; false when none is ready or it could not be used (the caller
// then adds a worktree the ordinary way). The caller holds the ref lock
// (and called prepared.await before taking it); path does not exist or is
// an empty folder.
func (r *Repo) claimPrepared(ctx context.Context, path, branch string) bool {
	t, ok := r.prepared.take()
	if !ok {
		return false
	}
	src := t.path
	if !r.movePrepared(ctx, src, path, branch) {
		closeWatch(t.watch)
		return false
	}
	r.prepared.watches.claim(path, t.watch)
	return true
}

// movePrepared moves the prepared worktree src to path and puts it on
// branch (claimPrepared); false: src was removed.
func (r *Repo) movePrepared(ctx context.Context, src, path, branch string) bool {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.dropWorktree(ctx, src)
		return false
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		r.dropWorktree(ctx, src)
		return false
	}
	if _, err := r.git.run(ctx, r.dir, nil, "worktree", "move", src, path); err != nil {
		r.dropWorktree(ctx, src)
		return false
	}
	if r.moveHEADOnly(ctx, path, branch) {
		return true
	}
	// Only the files that differ between the prepared commit and the
	// branch are written; a branch checked out elsewhere is refused.
	if _, err := r.git.run(ctx, path, nil, "checkout", "--quiet", branch, "--"); err != nil {
		r.dropWorktree(context.WithoutCancel(ctx), path)
		return false
	}
	return true
}

// moveHEADOnly puts the prepared worktree at path on branch when the
// branch points at the very commit the worktree was prepared at (a new
// workflow's branch does): its index and files already are that commit's
// fresh checkout, so only HEAD moves. git checkout would stat every file
// and rewrite the index to switch between identical trees (issue 35:
// 0.3 s on 23k files under load). false: nothing was changed, check the
// branch out. A branch checked out in another worktree is left to
// checkout, which refuses it.
func (r *Repo) moveHEADOnly(ctx context.Context, path, branch string) bool {
	ref := "refs/heads/" + branch
	out, err := r.git.text(ctx, path, "rev-parse", "HEAD", ref+"^{commit}")
	if err != nil {
		return false
	}
	head, tip, ok := strings.Cut(out, "\n")
	if !ok || head != tip || !isOID(head) {
		return false
	}
	if at, err := r.checkedOutElsewhere(ctx, ref, path); err != nil || at != "" {
		return false
	}
	_, err = r.git.run(ctx, path, nil, "symbolic-ref", "-m", "autarch: take prepared worktree", "HEAD", ref)
	return err == nil
}

// dropWorktree removes a worktree this package made and its registration
// (under the ref lock).
func (r *Repo) dropWorktree(ctx context.Context, path string) {
	r.prepared.watches.drop(path)
	if err := r.removeWorktree(ctx, path); err != nil {
		_ = os.RemoveAll(path)
		_, _ = r.git.run(ctx, r.dir, nil, "worktree", "prune")
	}
}

// dropOrphanedPrepared removes the prepared worktrees of processes that
// are gone: nobody vouches for them any more.
func (r *Repo) dropOrphanedPrepared(ctx context.Context) error {
	entries, err := os.ReadDir(r.preparedDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("prepared worktrees: %w", err)
	}
	var gone []string
	for _, e := range entries {
		path := filepath.Join(r.preparedDir(), e.Name())
		if strings.HasPrefix(e.Name(), spentPrefix) {
			continue // a spent tree (recycle.go): restored or removed when taken
		}
		pidText, _, _ := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(pidText)
		if err == nil && pid == os.Getpid() {
			continue // ours: ready, or being made
		}
		if err == nil && alive(pid) {
			continue // another live process's
		}
		if r.prepared.has(path) {
			continue
		}
		gone = append(gone, path)
	}
	if len(gone) == 0 {
		return nil
	}
	for _, path := range gone {
		if err := os.RemoveAll(path); err != nil {
			return fmt.Errorf("remove orphaned prepared worktree: %w", err)
		}
	}
	return r.refLock(ctx, func() error {
		if _, err := r.git.run(ctx, r.dir, nil, "worktree", "prune"); err != nil {
			return fmt.Errorf("prune orphaned prepared worktrees: %w", err)
		}
		return nil
	})
}

// alive reports whether a process with this id exists.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// registerWorktree registers a linked worktree at path on branch without
// writing its files (milliseconds: the part that needs the ref lock).
// populateWorktree then writes them, outside the lock.
func (r *Repo) registerWorktree(ctx context.Context, path, branch string) error {
	if _, err := r.git.run(ctx, r.dir, nil, "worktree", "add", "--quiet", "--no-checkout", path, branch); err != nil {
		return fmt.Errorf("add worktree %s: %w", path, err)
	}
	return nil
}

// populateWorktree checks out the files of a worktree registered by
// registerWorktree (what git worktree add does after registering one:
// reset --hard, with parallel checkout). A worktree it could not complete
// is removed: a half-written one must never be taken for a live one.
func (r *Repo) populateWorktree(ctx context.Context, path string) error {
	if _, err := r.git.run(ctx, path, nil, "reset", "--hard", "--quiet"); err != nil {
		ctx := context.WithoutCancel(ctx)
		_ = r.refLock(ctx, func() error { r.dropWorktree(ctx, path); return nil })
		return fmt.Errorf("check out worktree %s: %w", path, err)
	}
	r.markTreeFresh(path)
	return nil
}
