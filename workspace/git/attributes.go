package git

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Attributes an agent writes (redteam s11, 01). git reads .gitattributes
// from the work tree when it stages, and ident, text/eol and
// working-tree-encoding convert without any driver: an agent's
// attributes would make the checkpoint commit other bytes than the work
// tree the gates tested, and make an edit the conversion undoes no change
// at all. git 2.39 has no switch to read attributes from a commit
// (GIT_ATTR_SOURCE is 2.40), so the checkpoint and the changed paths
// compare the raw bytes of what they look at with what git staged, and
// where they differ while the tree's .gitattributes files are not the
// base commit's (the user's, whose conversions keep working), the raw
// bytes are what counts.

// rawEntry is a path whose raw bytes git's conversions would not store:
// its index mode and the raw bytes' object id.
type rawEntry struct {
	path, mode, raw string
}

// unconverted returns, of paths (nil with all: every entry of the index),
// the regular files whose raw bytes differ from their index entry, when
// the work tree's .gitattributes files differ from those of the
// workflow's base commit; none when they do not (the conversions are the
// user's). write stores the raw bytes as objects.
func (w *Workflow) unconverted(ctx context.Context, paths []string, all, write bool) ([]rawEntry, error) {
	if all {
		// Hashing every file costs: ask about the attributes first.
		if differ, err := w.agentAttributes(ctx); err != nil || !differ {
			return nil, err
		}
	} else if len(paths) == 0 {
		return nil, nil
	}
	entries, err := w.indexEntries(ctx, paths, all)
	if err != nil {
		return nil, err
	}
	raw, err := w.rawHashes(ctx, entries, false)
	if err != nil || len(raw) == 0 {
		return nil, err
	}
	if !all {
		if differ, err := w.agentAttributes(ctx); err != nil || !differ {
			return nil, err
		}
	}
	if write {
		if _, err := w.rawHashes(ctx, raw, true); err != nil {
			return nil, err
		}
	}
	return raw, nil
}

// indexEntries are the index's regular-file entries at paths (all: every
// one) whose file in the work tree is a regular file.
func (w *Workflow) indexEntries(ctx context.Context, paths []string, all bool) ([]rawEntry, error) {
	args := []string{"ls-files", "-s", "-z"}
	if !all && len(paths) <= maxNarrowed {
		args = append(args, "--")
		for _, p := range paths {
			args = append(args, ":(literal,top)"+p)
		}
	}
	listed, err := w.run(ctx, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("index entries in %s: %w", w.Worktree, err)
	}
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	var entries []rawEntry
	dirs := map[string]bool{".": true} // folders known to be folders, not links
	for _, e := range nulList(listed) {
		meta, p, ok := strings.Cut(e, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[2] != "0" || (f[0] != "100644" && f[0] != "100755") || (!all && !want[p]) {
			continue
		}
		if !w.realDir(path.Dir(p), dirs) {
			continue // beyond a link: git itself sees that change
		}
		if fi, err := os.Lstat(filepath.Join(w.Worktree, filepath.FromSlash(p))); err != nil || !fi.Mode().IsRegular() {
			continue // gone or no longer a file: git itself sees that change
		}
		entries = append(entries, rawEntry{path: p, mode: f[0], raw: f[1]})
	}
	return entries, nil
}

// realDir reports whether dir (slash-separated, below the top) and every
// folder above it are folders, not links, so that hashing a file in it
// reads nothing outside the tree; dirs remembers the answers.
func (w *Workflow) realDir(dir string, dirs map[string]bool) bool {
	if ok, seen := dirs[dir]; seen {
		return ok
	}
	ok := w.realDir(path.Dir(dir), dirs)
	if ok {
		fi, err := os.Lstat(filepath.Join(w.Worktree, filepath.FromSlash(dir)))
		ok = err == nil && fi.IsDir()
	}
	dirs[dir] = ok
	return ok
}

// rawHashes hashes the files of entries without any conversion (one
// process; write stores them) and returns the entries whose raw bytes
// differ from the id they hold, with the raw bytes' id.
func (w *Workflow) rawHashes(ctx context.Context, entries []rawEntry, write bool) ([]rawEntry, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	var in strings.Builder
	for _, e := range entries {
		in.WriteString(stdinPath(e.path))
		in.WriteByte('\n')
	}
	args := []string{"hash-object", "--no-filters", "--stdin-paths"}
	if write {
		args = []string{"hash-object", "-w", "--no-filters", "--stdin-paths"}
	}
	out, err := w.run(ctx, strings.NewReader(in.String()), args...)
	if err != nil {
		return nil, fmt.Errorf("hashing %d files as they are in %s: %w", len(entries), w.Worktree, err)
	}
	sums := strings.Fields(string(out))
	if len(sums) != len(entries) {
		return nil, fmt.Errorf("hashing %d files as they are in %s: %d ids", len(entries), w.Worktree, len(sums))
	}
	var differ []rawEntry
	for i, e := range entries {
		if sums[i] != e.raw {
			differ = append(differ, rawEntry{path: e.path, mode: e.mode, raw: sums[i]})
		}
	}
	return differ, nil
}

// stdinPath is p as hash-object --stdin-paths reads it: C-quoted where a
// line would not hold it as it is (a quote first, a line end in it).
func stdinPath(p string) string {
	if !strings.HasPrefix(p, `"`) && !strings.ContainsAny(p, "\n\r") {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// agentAttributes reports whether the work tree's .gitattributes files
// (tracked, untracked or ignored: git reads them all) differ from those
// of the workflow's base commit, the ones the user committed.
func (w *Workflow) agentAttributes(ctx context.Context) (bool, error) {
	base := map[string]string{}
	if w.BaseCommit != "" {
		listed, err := w.run(ctx, nil, "ls-tree", "-r", "-z", "--full-tree", w.BaseCommit)
		if err != nil {
			return false, fmt.Errorf("attributes of the base %.12s: %w", w.BaseCommit, err)
		}
		for _, e := range nulList(listed) {
			meta, p, ok := strings.Cut(e, "\t")
			if f := strings.Fields(meta); ok && len(f) == 3 && path.Base(p) == ".gitattributes" {
				base[p] = f[0] + " " + f[2]
			}
		}
	}
	listed, err := w.run(ctx, nil, "ls-files", "-z", "--cached", "--others", "--", ":(glob,top)**/.gitattributes")
	if err != nil {
		return false, fmt.Errorf("attributes files in %s: %w", w.Worktree, err)
	}
	seen := map[string]bool{}
	var files []rawEntry
	for _, p := range nulList(listed) {
		if seen[p] {
			continue
		}
		seen[p] = true
		fi, err := os.Lstat(filepath.Join(w.Worktree, filepath.FromSlash(p)))
		switch {
		case err != nil && os.IsNotExist(err):
			if _, ok := base[p]; ok {
				return true, nil // the user's attributes removed
			}
			continue // listed from the index, gone from the tree
		case err != nil:
			return false, fmt.Errorf("attributes file %s: %w", p, err)
		case !fi.Mode().IsRegular():
			return true, nil
		}
		mode := "100644"
		if fi.Mode()&0o111 != 0 {
			mode = "100755"
		}
		if b, ok := base[p]; !ok || !strings.HasPrefix(b, mode+" ") {
			return true, nil
		}
		files = append(files, rawEntry{path: p, mode: mode, raw: strings.TrimPrefix(base[p], mode+" ")})
	}
	for p := range base {
		if !seen[p] {
			return true, nil
		}
	}
	differ, err := w.rawHashes(ctx, files, false)
	if err != nil {
		return false, err
	}
	return len(differ) > 0, nil
}

// stageRaw puts the raw bytes of entries (unconverted) into the index and
// writes its tree.
func (w *Workflow) stageRaw(ctx context.Context, entries []rawEntry) (string, error) {
	var in strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&in, "%s %s\t%s\x00", e.mode, e.raw, e.path)
	}
	if _, err := w.run(ctx, strings.NewReader(in.String()), "update-index", "-z", "--index-info"); err != nil {
		return "", fmt.Errorf("staging %d files as they are in %s: %w", len(entries), w.Worktree, err)
	}
	tree, err := w.text(ctx, "write-tree")
	if err != nil {
		return "", fmt.Errorf("write tree: %w", err)
	}
	return tree, nil
}

// StageAsWritten is, for a job's work tree dir after StageAll, what the
// checkpoint does for a pulse: where dir's .gitattributes files are not
// those of base (the commit the job started from; "HEAD": the tree's
// committed ones), every path staged differently from HEAD whose raw bytes
// git's conversions would not store is staged as its raw bytes, so that
// the commit holds what the job's checks tested. It returns how many
// paths were.
func (r *Repo) StageAsWritten(ctx context.Context, dir, base string) (int, error) {
	w := &Workflow{repo: r, Worktree: dir, BaseCommit: base}
	names, err := w.run(ctx, nil, "diff", "--cached", "--name-only", "-z", "--no-renames", "HEAD")
	if err != nil {
		return 0, fmt.Errorf("staged paths in %s: %w", dir, err)
	}
	raw, err := w.unconverted(ctx, nulList(names), false, true)
	if err != nil || len(raw) == 0 {
		return 0, err
	}
	if _, err := w.stageRaw(ctx, raw); err != nil {
		return 0, err
	}
	return len(raw), nil
}

// Unconverted names, for a job's work tree dir whose .gitattributes files
// are not base's, every tracked file whose raw bytes differ from its index
// entry, with the raw bytes' id ("" when there is none or the attributes
// are base's): part of what identifies the tree a check ran on, since an
// edit git's conversion takes back is no change to git diff.
func (r *Repo) Unconverted(ctx context.Context, dir, base string) (string, error) {
	w := &Workflow{repo: r, Worktree: dir, BaseCommit: base}
	raw, err := w.unconverted(ctx, nil, true, false)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, e := range raw {
		fmt.Fprintf(&b, "%s %s\t%s\x00", e.mode, e.raw, e.path)
	}
	return b.String(), nil
}
