package tools

import (
	"fmt"
	"strconv"
	"strings"
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
	var oldStart, oldLen, newStart, newLen int
	if !parseRange(header, &oldStart, &oldLen, &newStart, &newLen) {
		return hunk{}, 0, fmt.Errorf("line %d: malformed hunk header %q (want @@ -a,b +c,d @@)", i+1, header)
	}
	h := hunk{oldStart: oldStart, header: header}
	j := i + 1
	seenOld, seenNew := 0, 0
	for ; j < len(lines) && (seenOld < oldLen || seenNew < newLen); j++ {
		l := lines[j]
		if l == "" {
			break
		}
		if strings.HasPrefix(l, `\`) {
			trimLastNewline(&h)
			continue
		}
		body := l[1:]
		switch l[0] {
		case ' ':
			h.old = append(h.old, body)
			h.new = append(h.new, body)
			seenOld++
			seenNew++
		case '-':
			h.old = append(h.old, body)
			seenOld++
		case '+':
			h.new = append(h.new, body)
			seenNew++
		case '\n':
			h.old = append(h.old, "\n")
			h.new = append(h.new, "\n")
			seenOld++
			seenNew++
		default:
			return hunk{}, 0, fmt.Errorf("line %d: unexpected %q in hunk %s", j+1, strings.TrimRight(l, "\n"), header)
		}
	}
	if j < len(lines) && strings.HasPrefix(lines[j], `\`) {
		trimLastNewline(&h)
		j++
	}
	if seenOld != oldLen || seenNew != newLen {
		return hunk{}, 0, fmt.Errorf("hunk %s: expected %d old and %d new lines, found %d and %d", header, oldLen, newLen, seenOld, seenNew)
	}
	return h, j, nil
}

// trimLastNewline applies "\ No newline at end of file" to the last line.
func trimLastNewline(h *hunk) {
	if n := len(h.new); n > 0 {
		h.new[n-1] = strings.TrimSuffix(h.new[n-1], "\n")
	}
	if n := len(h.old); n > 0 {
		h.old[n-1] = strings.TrimSuffix(h.old[n-1], "\n")
	}
}

func parseRange(header string, oldStart, oldLen, newStart, newLen *int) bool {
	rest, ok := strings.CutPrefix(header, "@@ -")
	if !ok {
		return false
	}
	end := strings.Index(rest, " @@")
	if end < 0 {
		return false
	}
	parts := strings.SplitN(rest[:end], " +", 2)
	if len(parts) != 2 {
		return false
	}
	return parseSpan(parts[0], oldStart, oldLen) && parseSpan(parts[1], newStart, newLen)
}

func parseSpan(s string, start, length *int) bool {
	a, b, hasLen := strings.Cut(s, ",")
	var err error
	if *start, err = strconv.Atoi(a); err != nil || *start < 0 {
		return false
	}
	*length = 1
	if hasLen {
		if *length, err = strconv.Atoi(b); err != nil || *length < 0 {
			return false
		}
	}
	return true
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
