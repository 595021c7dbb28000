package unidiff

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// FilePatch is one file's part of a unified diff, parsed by
// github.com/bluekeyes/go-gitdiff (git's "diff --git" form and the
// traditional "--- a/x" / "+++ b/x" form, several files per patch).
type FilePatch struct {
	// OldPath and NewPath are the file's paths before and after, without
	// the a/ and b/ prefixes; "" for the /dev/null side of a created or
	// deleted file.
	OldPath, NewPath string
	// Created, Deleted and Renamed say what happens to the file.
	Created, Deleted, Renamed bool
	// Binary is a binary file's change (never applied here).
	Binary bool
	Edits  []Edit
}

// Path is the path the patch acts on: the new path, or the old path of a
// deleted file.
func (f FilePatch) Path() string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.OldPath
}

// LinesChanged counts the added and removed lines.
func (f FilePatch) LinesChanged() int {
	n := 0
	for _, e := range f.Edits {
		n += e.Added + e.Removed
	}
	return n
}

// Edit is one hunk of a FilePatch, ready to apply.
type Edit struct {
	// OldStart is the first old line the hunk replaces (1-based; for a
	// pure insertion the line it follows).
	OldStart int
	// Old and New are the lines it replaces and writes, each ending in
	// "\n" but for a last line without one.
	Old, New []string
	// Header is its "@@ -a,b +c,d @@" line.
	Header string
	// Added and Removed count its + and - lines.
	Added, Removed int
}

// ParsePatch parses a unified diff of one or more files. A patch without
// file headers (only "@@" hunks, as a model may write for a single named
// file) is read as one file's hunks with empty paths. Malformed input is
// an error naming the line; it never panics.
func ParsePatch(text string) ([]FilePatch, error) {
	if text == "" || strings.TrimSpace(text) == "" {
		return nil, errors.New("the patch is empty: give a unified diff with @@ -a,b +c,d @@ hunks")
	}
	at, headerless := firstHunkWithoutHeader(text)
	if headerless {
		text = text[:at] + "--- a/-\n+++ b/-\n" + text[at:]
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	files, _, err := gitdiff.Parse(strings.NewReader(text))
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "gitdiff: ")
		if headerless {
			msg = shiftLine(msg, -2)
		}
		return nil, errors.New(msg)
	}
	if len(files) == 0 {
		return nil, errors.New("no hunks found: give a unified diff with @@ -a,b +c,d @@ headers")
	}
	forms := headerForms(text)
	out := make([]FilePatch, 0, len(files))
	for i, f := range files {
		gitForm := len(forms) == len(files) && forms[i]
		fp := FilePatch{Created: f.IsNew, Deleted: f.IsDelete, Renamed: f.IsRename || f.IsCopy, Binary: f.IsBinary}
		if !f.IsNew {
			fp.OldPath = cleanName(f.OldName, gitForm)
		}
		if !f.IsDelete {
			fp.NewPath = cleanName(f.NewName, gitForm)
		}
		if headerless {
			fp.OldPath, fp.NewPath = "", ""
		}
		for _, frag := range f.TextFragments {
			fp.Edits = append(fp.Edits, editOf(frag))
		}
		if len(fp.Edits) == 0 && !fp.Binary && !fp.Created && !fp.Deleted && !fp.Renamed {
			continue // a mode change only
		}
		out = append(out, fp)
	}
	if len(out) == 0 {
		return nil, errors.New("no hunks found: give a unified diff with @@ -a,b +c,d @@ headers")
	}
	return out, nil
}

// firstHunkWithoutHeader finds a first hunk that comes before any file
// header: its offset, and true.
func firstHunkWithoutHeader(text string) (int, bool) {
	at := 0
	for line := range strings.Lines(text) {
		switch {
		case strings.HasPrefix(line, "@@"):
			return at, true
		case strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "diff --git "):
			return 0, false
		}
		at += len(line)
	}
	return 0, false
}

// headerForms tells, for each file of a patch in order, whether its
// header is git's ("diff --git", names without a/ and b/ once parsed) or
// the traditional "--- a/x" / "+++ b/x" (go-gitdiff keeps the prefixes),
// with go-gitdiff's own test for a traditional header.
func headerForms(text string) []bool {
	var forms []bool
	inGit := false
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			forms, inGit = append(forms, true), true
		case strings.HasPrefix(l, "@@ -"):
			inGit = false
		case !inGit && strings.HasPrefix(l, "--- ") && i+2 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ") && strings.HasPrefix(lines[i+2], "@@ -"):
			forms = append(forms, false)
		}
	}
	return forms
}

// shiftLine corrects go-gitdiff's "line N:" for the two header lines
// added to a header-less patch.
func shiftLine(msg string, by int) string {
	var n int
	var rest string
	if k, err := fmt.Sscanf(msg, "line %d:", &n); k == 1 && err == nil {
		_, rest, _ = strings.Cut(msg, ":")
		return fmt.Sprintf("line %d:%s", max(1, n+by), rest)
	}
	return msg
}

// cleanName drops the a/ or b/ prefix of a traditional header's name
// (git's form has it dropped by the parser).
func cleanName(name string, gitForm bool) string {
	if name == "/dev/null" {
		return ""
	}
	if !gitForm {
		for _, p := range []string{"a/", "b/"} {
			if rest, ok := strings.CutPrefix(name, p); ok {
				return rest
			}
		}
	}
	return name
}

func editOf(frag *gitdiff.TextFragment) Edit {
	e := Edit{OldStart: int(frag.OldPosition), Header: strings.TrimRight(frag.Header(), "\n"), Added: int(frag.LinesAdded), Removed: int(frag.LinesDeleted)}
	for _, l := range frag.Lines {
		if l.Old() {
			e.Old = append(e.Old, l.Line)
		}
		if l.New() {
			e.New = append(e.New, l.Line)
		}
	}
	return e
}

// Apply applies edits to content in memory. Each edit's old lines must
// match exactly; the position may have moved (searched outward from the
// stated line). The first edit that does not apply is reported, and
// nothing is returned.
func Apply(content string, edits []Edit) (string, error) {
	lines := strings.SplitAfter(content, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	offset := 0
	for k, h := range edits {
		want := h.OldStart - 1 + offset
		if len(h.Old) == 0 {
			want = h.OldStart + offset // pure insertion after line OldStart
		}
		at := findEdit(lines, h.Old, want)
		if at < 0 {
			return "", fmt.Errorf("hunk %d (%s) does not apply: its context and removed lines are not in the file at or near line %d", k+1, h.Header, h.OldStart)
		}
		out := make([]string, 0, len(lines)-len(h.Old)+len(h.New))
		out = append(out, lines[:at]...)
		out = append(out, h.New...)
		out = append(out, lines[at+len(h.Old):]...)
		lines = out
		offset += len(h.New) - len(h.Old) + (at - want)
	}
	return strings.Join(lines, ""), nil
}

// findEdit finds old in lines nearest to want, or -1.
func findEdit(lines, old []string, want int) int {
	want = max(0, min(want, len(lines)))
	matches := func(at int) bool {
		if at < 0 || at+len(old) > len(lines) {
			return false
		}
		for i, o := range old {
			if lines[at+i] != o && strings.TrimSuffix(lines[at+i], "\n") != strings.TrimSuffix(o, "\n") || (i == len(old)-1) && !sameEnding(lines[at+i], o, at+i == len(lines)-1) {
				return false
			}
		}
		return true
	}
	for d := 0; d <= len(lines); d++ {
		if matches(want - d) {
			return want - d
		}
		if d > 0 && matches(want+d) {
			return want + d
		}
	}
	return -1
}

// sameEnding allows a hunk's last old line to lack the newline only when
// it is the file's last line.
func sameEnding(line, old string, last bool) bool {
	if line == old {
		return true
	}
	return last
}
