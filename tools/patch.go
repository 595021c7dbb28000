package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/workspace/unidiff"
)

// hunk is one @@ block of a unified diff.
type hunk struct {
	oldStart int
	old, new []string // lines without their prefix, each ending in "\n" unless at EOF without newline
	header   string
}

// filePatch is the hunks for one file.
type filePatch struct {
	oldPath, newPath string
	hunks            []hunk
}

// parsePatch parses a unified diff of one or more files. It never panics;
// malformed input gives an error naming the line.
func parsePatch(text string) ([]filePatch, error) {
	lines := strings.SplitAfter(text, "\n")
	var files []filePatch
	var cur *filePatch
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "--- "):
			files = append(files, filePatch{oldPath: patchPath(l[4:])})
			cur = &files[len(files)-1]
		case strings.HasPrefix(l, "+++ "):
			if cur == nil {
				files = append(files, filePatch{})
				cur = &files[len(files)-1]
			}
			cur.newPath = patchPath(l[4:])
		case strings.HasPrefix(l, "@@"):
			if cur == nil {
				files = append(files, filePatch{})
				cur = &files[len(files)-1]
			}
			h, next, err := parseHunk(lines, i)
			if err != nil {
				return nil, err
			}
			cur.hunks = append(cur.hunks, h)
			i = next - 1
		}
	}
	if len(files) == 0 || len(files[0].hunks) == 0 {
		return nil, fmt.Errorf("no hunks found: give a unified diff with @@ -a,b +c,d @@ headers")
	}
	return files, nil
}

func patchPath(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	if s == "/dev/null" {
		return s
	}
	for _, p := range []string{"a/", "b/"} {
		if strings.HasPrefix(s, p) {
			return s[2:]
		}
	}
	return s
}

// parseHunk reads the hunk starting at lines[i]; it returns the index after it.
func parseHunk(lines []string, i int) (hunk, int, error) {
	header := strings.TrimRight(lines[i], "\r\n")
	hd, err := unidiff.ParseHeader(header)
	if err != nil {
		return hunk{}, 0, fmt.Errorf("line %d: malformed hunk header %q (want @@ -a,b +c,d @@)", i+1, header)
	}
	body, n, err := unidiff.ReadHunk(hd, lines[i+1:])
	var lineErr *unidiff.LineError
	var countErr *unidiff.CountError
	switch {
	case errors.As(err, &lineErr):
		return hunk{}, 0, fmt.Errorf("line %d: unexpected %q in hunk %s", i+2+lineErr.Index, lineErr.Line, header)
	case errors.As(err, &countErr):
		return hunk{}, 0, fmt.Errorf("hunk %s: expected %d old and %d new lines, found %d and %d", header, hd.OldLines, hd.NewLines, body.OldSeen, body.NewSeen)
	case err != nil:
		return hunk{}, 0, err
	}
	h := hunk{oldStart: hd.OldStart, header: header}
	for _, l := range body.Lines {
		if l.Op != unidiff.Added {
			h.old = append(h.old, l.Text)
		}
		if l.Op != unidiff.Deleted {
			h.new = append(h.new, l.Text)
		}
		if l.NoNewline {
			trimLastNewline(&h, l.Op != unidiff.Deleted)
		}
	}
	return h, i + 1 + n, nil
}

// trimLastNewline applies "\ No newline at end of file" to the last old
// line read so far and, unless the marker follows a removed line (git's
// form when the new side gains a final newline), the last new line.
func trimLastNewline(h *hunk, newSide bool) {
	if n := len(h.new); n > 0 && newSide {
		h.new[n-1] = strings.TrimSuffix(h.new[n-1], "\n")
	}
	if n := len(h.old); n > 0 {
		h.old[n-1] = strings.TrimSuffix(h.old[n-1], "\n")
	}
}

// applyHunks applies hunks to content in memory. Each hunk's old lines must
// match exactly; the position may have moved (searched outward from the
// stated line). The first hunk that does not apply is reported, and nothing
// is returned.
func applyHunks(content string, hunks []hunk) (string, error) {
	lines := strings.SplitAfter(content, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	offset := 0
	for k, h := range hunks {
		want := h.oldStart - 1 + offset
		if len(h.old) == 0 {
			want = h.oldStart + offset // pure insertion after line oldStart
		}
		at := findHunk(lines, h.old, want)
		if at < 0 {
			return "", fmt.Errorf("hunk %d (%s) does not apply: its context and removed lines are not in the file at or near line %d", k+1, h.header, h.oldStart)
		}
		out := make([]string, 0, len(lines)-len(h.old)+len(h.new))
		out = append(out, lines[:at]...)
		out = append(out, h.new...)
		out = append(out, lines[at+len(h.old):]...)
		lines = out
		offset += len(h.new) - len(h.old) + (at - want)
	}
	return strings.Join(lines, ""), nil
}

// findHunk finds old in lines nearest to want, or -1.
func findHunk(lines, old []string, want int) int {
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
