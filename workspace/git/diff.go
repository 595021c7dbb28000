package git

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/autarch-dev/autarch/workspace/unidiff"
)

// Stats summarise a diff.
type Stats struct {
	Files     int `json:"files"`
	Additions int `json:"additions"`
	Deletions int `json:"deletions"`
}

// FileStatus is how a file changed.
type FileStatus string

// File statuses.
const (
	FileAdded    FileStatus = "added"
	FileModified FileStatus = "modified"
	FileDeleted  FileStatus = "deleted"
	FileRenamed  FileStatus = "renamed"
	FileCopied   FileStatus = "copied"
)

// LineKind says which side(s) of a diff a line is on.
type LineKind string

// Line kinds.
const (
	LineContext LineKind = "context" // on both sides, unchanged
	LineAdded   LineKind = "added"   // new side only
	LineDeleted LineKind = "deleted" // old side only
)

// Line is one line of a hunk. Old and New are its line numbers on each side
// (0 on the side it is not on).
type Line struct {
	Kind LineKind `json:"kind"`
	Old  int      `json:"old,omitempty"`
	New  int      `json:"new,omitempty"`
	Text string   `json:"text"`
	// NoNewline is set on the last line of a side without a final newline.
	NoNewline bool `json:"noNewline,omitempty"`
}

// Hunk is one @@ section of a file's diff.
type Hunk struct {
	OldStart int    `json:"oldStart"`
	OldLines int    `json:"oldLines"`
	NewStart int    `json:"newStart"`
	NewLines int    `json:"newLines"`
	Section  string `json:"section,omitempty"` // the text after the second @@
	Lines    []Line `json:"lines"`
}

// FileDiff is one file of a diff.
type FileDiff struct {
	// Path is the file's path on the new side (the old path for a deleted
	// file), relative to the repository top.
	Path string `json:"path"`
	// OldPath is set for renames and copies.
	OldPath   string     `json:"oldPath,omitempty"`
	Status    FileStatus `json:"status"`
	Binary    bool       `json:"binary,omitempty"`
	Additions int        `json:"additions"`
	Deletions int        `json:"deletions"`
	Hunks     []Hunk     `json:"hunks,omitempty"`
	// Patch is this file's part of the unified diff.
	Patch string `json:"-"`
}

// NewLine returns the diff line at line n of the new side, if a hunk shows
// it (added or context).
func (f *FileDiff) NewLine(n int) (Line, bool) {
	for _, h := range f.Hunks {
		if n < h.NewStart || n >= h.NewStart+h.NewLines {
			continue
		}
		for _, l := range h.Lines {
			if l.New == n {
				return l, true
			}
		}
	}
	return Line{}, false
}

// Touches reports whether new-side lines start..end (inclusive) overlap a
// hunk, i.e. a review comment there is anchored to the diff.
func (f *FileDiff) Touches(start, end int) bool {
	if end < start {
		end = start
	}
	for _, h := range f.Hunks {
		last := h.NewStart + h.NewLines - 1
		if h.NewLines > 0 && start <= last && end >= h.NewStart {
			return true
		}
	}
	return false
}

// Diff is a unified diff between two commits (or a commit and the work
// tree), parsed per file.
type Diff struct {
	Base  string     `json:"base"`           // the old side's commit
	Head  string     `json:"head,omitempty"` // the new side's commit; "" for the work tree
	Patch string     `json:"-"`              // the whole unified diff text
	Files []FileDiff `json:"files"`
	Stats Stats      `json:"stats"`
}

// File returns the diff of path (new-side path, or old path of a deletion).
func (d *Diff) File(path string) (*FileDiff, bool) {
	for i := range d.Files {
		if d.Files[i].Path == path {
			return &d.Files[i], true
		}
	}
	return nil, false
}

// Diff returns what head adds since it forked from base: the diff from
// their merge base to head. head "" means the user's work tree (tracked
// files; untracked files do not appear). Nothing is written.
func (r *Repo) Diff(ctx context.Context, base, head string) (*Diff, error) {
	to := head
	if to == "" {
		to = "HEAD"
	}
	headCommit, err := r.ResolveCommit(ctx, to)
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	mb, err := r.mergeBase(ctx, base, headCommit)
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	d := &Diff{Base: mb}
	sides := []string{mb}
	if head != "" {
		d.Head = headCommit
		sides = append(sides, headCommit)
	}
	return d, r.fillDiff(ctx, d, sides)
}

// Diff is the workflow branch against its base (from their merge base, or
// from BaseCommit when Base no longer resolves).
func (w *Workflow) Diff(ctx context.Context) (*Diff, error) {
	if _, err := w.repo.ResolveCommit(ctx, w.Base); err != nil {
		return w.repo.Diff(ctx, w.BaseCommit, "refs/heads/"+w.Branch)
	}
	return w.repo.Diff(ctx, w.Base, "refs/heads/"+w.Branch)
}

// diffArgs builds a diff command line that does not depend on the user's
// diff configuration; sides come after --end-of-options.
func diffArgs(sides []string, opts ...string) []string {
	args := []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--find-renames", "--src-prefix=a/", "--dst-prefix=b/"}
	args = append(args, opts...)
	args = append(args, "--end-of-options")
	return append(args, sides...)
}

func (r *Repo) fillDiff(ctx context.Context, d *Diff, sides []string) error {
	num, err := r.git.run(ctx, r.dir, nil, diffArgs(sides, "--numstat", "-z")...)
	if err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	stats, err := parseNumstat(string(num))
	if err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	patch, err := r.git.run(ctx, r.dir, nil, diffArgs(sides)...)
	if err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	d.Patch = string(patch)
	sections := splitPatch(d.Patch)
	if len(sections) != len(stats) {
		return fmt.Errorf("diff: %d files in the patch but %d in the stats", len(sections), len(stats))
	}
	d.Files = make([]FileDiff, len(stats))
	for i, st := range stats {
		f, err := parseFilePatch(sections[i])
		if err != nil {
			return fmt.Errorf("diff of %s: %w", st.Path, err)
		}
		f.Path, f.OldPath = st.Path, st.OldPath
		f.Additions, f.Deletions = st.Additions, st.Deletions
		f.Binary = f.Binary || st.Binary
		if f.Status == FileModified && st.OldPath != "" {
			f.Status = FileRenamed
		}
		d.Files[i] = f
		d.Stats.Files++
		d.Stats.Additions += st.Additions
		d.Stats.Deletions += st.Deletions
	}
	return nil
}

// DiffStats counts the files and lines changed from one commit to another.
func (r *Repo) DiffStats(ctx context.Context, from, to string) (Stats, error) {
	out, err := r.git.run(ctx, r.dir, nil, diffArgs([]string{from, to}, "--numstat", "-z")...)
	if err != nil {
		return Stats{}, fmt.Errorf("diff stats: %w", err)
	}
	files, err := parseNumstat(string(out))
	if err != nil {
		return Stats{}, fmt.Errorf("diff stats: %w", err)
	}
	var s Stats
	for _, f := range files {
		s.Files++
		s.Additions += f.Additions
		s.Deletions += f.Deletions
	}
	return s, nil
}

type numstat struct {
	Path, OldPath        string
	Additions, Deletions int
	Binary               bool
}

// parseNumstat parses `git diff --numstat -z`: "add\tdel\tpath\0", or for a
// rename or copy "add\tdel\t\0old\0new\0"; binary files count "-".
func parseNumstat(out string) ([]numstat, error) {
	var list []numstat
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if f == "" {
			continue
		}
		add, rest, ok1 := strings.Cut(f, "\t")
		del, path, ok2 := strings.Cut(rest, "\t")
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("unexpected numstat entry %q", f)
		}
		n := numstat{Path: path}
		if add == "-" && del == "-" {
			n.Binary = true
		} else {
			var err1, err2 error
			n.Additions, err1 = strconv.Atoi(add)
			n.Deletions, err2 = strconv.Atoi(del)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("unexpected numstat counts in %q", f)
			}
		}
		if path == "" {
			if i+2 >= len(fields) {
				return nil, fmt.Errorf("truncated numstat rename entry %q", f)
			}
			n.OldPath, n.Path = fields[i+1], fields[i+2]
			i += 2
		}
		list = append(list, n)
	}
	return list, nil
}

// splitPatch splits a unified diff into its per-file sections.
func splitPatch(patch string) []string {
	var sections []string
	start := -1
	pos := 0
	for pos < len(patch) {
		end := strings.IndexByte(patch[pos:], '\n')
		next := len(patch)
		if end >= 0 {
			next = pos + end + 1
		}
		if strings.HasPrefix(patch[pos:], "diff --git ") || strings.HasPrefix(patch[pos:], "diff --cc ") {
			if start >= 0 {
				sections = append(sections, patch[start:pos])
			}
			start = pos
		}
		pos = next
	}
	if start >= 0 {
		sections = append(sections, patch[start:])
	}
	return sections
}

// parseFilePatch parses one file's section: the extended header lines, then
// hunks whose line counts bound them (so content that looks like a header
// is never mistaken for one).
func parseFilePatch(section string) (FileDiff, error) {
	f := FileDiff{Status: FileModified, Patch: section}
	lines := splitLines(section)
	var h *Hunk
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSuffix(lines[i], "\n")
		switch {
		case strings.HasPrefix(line, "@@ "):
			hd, err := unidiff.ParseHeader(line)
			if err != nil {
				return FileDiff{}, err
			}
			body, n, err := unidiff.ReadHunk(hd, lines[i+1:])
			if err != nil {
				return FileDiff{}, hunkError(err)
			}
			f.Hunks = append(f.Hunks, hunkOf(body))
			h = &f.Hunks[len(f.Hunks)-1]
			i += n
		case strings.HasPrefix(line, `\`) && h != nil:
			markNoNewline(h)
		case h != nil:
			return FileDiff{}, fmt.Errorf("unexpected line after hunk: %q", line)
		case strings.HasPrefix(line, "new file mode"):
			f.Status = FileAdded
		case strings.HasPrefix(line, "deleted file mode"):
			f.Status = FileDeleted
		case strings.HasPrefix(line, "rename from "):
			f.Status = FileRenamed
		case strings.HasPrefix(line, "copy from "):
			f.Status = FileCopied
		case strings.HasPrefix(line, "Binary files ") || line == "GIT binary patch":
			f.Binary = true
		}
	}
	return f, nil
}

// splitLines splits text after each "\n", a line ending in "\r\n" (or,
// the last, in "\r") read as ending in "\n", as bufio.ScanLines reads
// lines: the views show a CRLF file's lines without their CR.
func splitLines(text string) []string {
	lines := strings.SplitAfter(text, "\n")
	if n := len(lines); lines[n-1] == "" {
		lines = lines[:n-1]
	}
	for i, l := range lines {
		if strings.HasSuffix(l, "\r\n") {
			lines[i] = l[:len(l)-2] + "\n"
		} else if i == len(lines)-1 && strings.HasSuffix(l, "\r") {
			lines[i] = l[:len(l)-1] + "\n"
		}
	}
	return lines
}

// hunkError words a hunk body's error for the diff views.
func hunkError(err error) error {
	var countErr *unidiff.CountError
	if errors.As(err, &countErr) {
		if countErr.Long() {
			return fmt.Errorf("hunk at +%d is longer than its header says", countErr.Hunk.NewStart)
		}
		return fmt.Errorf("hunk at +%d is truncated", countErr.Hunk.NewStart)
	}
	return err // a *unidiff.LineError: "unexpected line in hunk: …"
}

// hunkOf is a parsed hunk in the diff views' shape.
func hunkOf(u *unidiff.Hunk) Hunk {
	h := Hunk{OldStart: u.OldStart, OldLines: u.OldLines, NewStart: u.NewStart, NewLines: u.NewLines, Section: u.Section,
		Lines: make([]Line, 0, len(u.Lines))}
	for _, l := range u.Lines {
		line := Line{Old: l.Old, New: l.New, Text: strings.TrimSuffix(l.Text, "\n"), NoNewline: l.NoNewline}
		switch l.Op {
		case unidiff.Context:
			line.Kind = LineContext
		case unidiff.Added:
			line.Kind = LineAdded
		case unidiff.Deleted:
			line.Kind = LineDeleted
		}
		h.Lines = append(h.Lines, line)
	}
	return h
}

func markNoNewline(h *Hunk) {
	if n := len(h.Lines); n > 0 {
		h.Lines[n-1].NoNewline = true
	}
}
