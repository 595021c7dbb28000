package git

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
)

// StatusEntry is one changed path of a worktree (git status --porcelain
// v1): X is the index status, Y the worktree status; "??" is untracked.
type StatusEntry struct {
	X, Y     byte
	Path     string
	OrigPath string // the source of a rename or copy
}

// Untracked reports an untracked path.
func (e StatusEntry) Untracked() bool { return e.X == '?' && e.Y == '?' }

// Status is the state of a worktree against its HEAD.
type Status struct {
	Entries []StatusEntry
}

// Clean reports whether nothing is modified, staged or untracked (ignored
// files do not count).
func (s Status) Clean() bool { return len(s.Entries) == 0 }

// TrackedChanges lists paths of tracked files that are modified, added to
// the index, deleted or renamed.
func (s Status) TrackedChanges() []string {
	var out []string
	for _, e := range s.Entries {
		if !e.Untracked() {
			out = append(out, e.Path)
		}
	}
	return out
}

// Untracked lists untracked paths; a wholly untracked directory is one
// entry ending in "/".
func (s Status) Untracked() []string {
	var out []string
	for _, e := range s.Entries {
		if e.Untracked() {
			out = append(out, e.Path)
		}
	}
	return out
}

// Status reports the worktree's changes against its HEAD (git status; far
// faster than go-git's on large trees). It never writes the index.
func (w *Workflow) Status(ctx context.Context) (Status, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status(ctx)
}

// status is git status --porcelain=v1 --untracked-files=normal, taken as
// its two halves at once (issue 35: on a 23k-file tree the stat pass of
// the tracked files and the walk for untracked ones each cost about as
// much, one after the other): git status --untracked-files=no for the
// tracked changes, and git ls-files --others --directory
// --no-empty-directory, which lists the untracked files as status does (a
// folder whose files are all untracked, or a nested repository, as
// "dir/", in the same order), after them.
func (w *Workflow) status(ctx context.Context) (Status, error) {
	seed := w.seeded(ctx) // the next listing of untracked files builds on this one
	var others []byte
	var othersErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		others, othersErr = w.run(ctx, nil, "ls-files", "--others", "--directory", "--no-empty-directory", "--exclude-standard", "--full-name", "-z", "--", ":(top)")
	})
	out, err := w.trackedStatus(ctx)
	wg.Wait()
	if err == nil {
		err = othersErr
	}
	if err != nil {
		seed(nil, false)
		return Status{}, fmt.Errorf("worktree status: %w", err)
	}
	st, err := parseStatus(string(out))
	if err != nil {
		seed(nil, false)
		return Status{}, fmt.Errorf("worktree status: %w", err)
	}
	for _, p := range nulList(others) {
		st.Entries = append(st.Entries, StatusEntry{X: '?', Y: '?', Path: p})
	}
	seed(st.Untracked(), true)
	return st, nil
}

// parseStatus parses `git status --porcelain=v1 -z`.
func parseStatus(out string) (Status, error) {
	var st Status
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if f == "" {
			continue
		}
		if len(f) < 4 || f[2] != ' ' {
			return Status{}, fmt.Errorf("unexpected status entry %q", f)
		}
		e := StatusEntry{X: f[0], Y: f[1], Path: f[3:]}
		if e.X == 'R' || e.X == 'C' || e.Y == 'R' || e.Y == 'C' {
			if i+1 < len(fields) {
				i++
				e.OrigPath = fields[i]
			}
		}
		st.Entries = append(st.Entries, e)
	}
	return st, nil
}

// trackedStatus is git status --porcelain=v1 -z --untracked-files=no
// --ignore-submodules=all, asked only about the files a pass over the
// tracked files (trackedPass) cannot prove unchanged where the index
// holds HEAD's tree (issue 35: git stat-ed every file of a 23k-file
// tree). The pass is the base of the next (the gates' changed paths).
func (w *Workflow) trackedStatus(ctx context.Context) ([]byte, error) {
	args := []string{"status", "--porcelain=v1", "-z", "--untracked-files=no", "--ignore-submodules=all"}
	head, herr := w.text(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{tree}")
	scan, ok, done := w.trackedPass(ctx)
	narrow := ok && herr == nil && scan.tree == head && len(scan.maybe) <= maxNarrowed
	if narrow && len(scan.maybe) == 0 {
		done(&scan)
		return nil, nil
	}
	if narrow {
		args = append(args, "--")
		for _, p := range scan.maybe {
			args = append(args, ":(literal,top)"+p)
		}
	}
	out, err := w.run(ctx, nil, args...)
	if err != nil || !ok {
		done(nil)
		return out, err
	}
	done(&scan)
	// What git cannot see from stat data is modified in the work tree
	// until its content is staged (trackedScan.blind).
	blind, err := w.blindChanged(ctx, scan.blind)
	if err != nil {
		return nil, err
	}
	if len(blind) > 0 {
		listed := map[string]bool{}
		for e := range bytes.SplitSeq(out, []byte{0}) {
			if len(e) > 3 {
				listed[string(e[3:])] = true
			}
		}
		for _, p := range blind {
			if !listed[p] {
				out = append(out, " M "+p+"\x00"...)
			}
		}
	}
	return out, nil
}
