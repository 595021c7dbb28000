// Package unidiff parses the hunks of unified diffs: the "@@ -a,b +c,d @@"
// header and the body whose line counts it gives. It is the one parser
// behind apply_patch (tools) and the diff views (workspace/git); each reads
// its own file headers around it.
package unidiff

import (
	"fmt"
	"strconv"
	"strings"
)

// Header is a hunk's "@@ -OldStart,OldLines +NewStart,NewLines @@ Section"
// line; an omitted count is 1.
type Header struct {
	OldStart, OldLines int
	NewStart, NewLines int
	// Section is the text after the second @@ (git's function context),
	// without the space before it.
	Section string
}

// ParseHeader parses a hunk header line (without its newline).
func ParseHeader(line string) (Header, error) {
	rest, ok := strings.CutPrefix(line, "@@ ")
	if !ok {
		return Header{}, fmt.Errorf("malformed hunk header %q", line)
	}
	ranges, section, ok := strings.Cut(rest, " @@")
	if !ok {
		return Header{}, fmt.Errorf("malformed hunk header %q", line)
	}
	oldR, newR, ok := strings.Cut(ranges, " ")
	if !ok || !strings.HasPrefix(oldR, "-") || !strings.HasPrefix(newR, "+") {
		return Header{}, fmt.Errorf("malformed hunk header %q", line)
	}
	h := Header{Section: strings.TrimPrefix(section, " ")}
	var err error
	if h.OldStart, h.OldLines, err = parseRange(oldR[1:]); err != nil {
		return Header{}, fmt.Errorf("hunk header %q: %w", line, err)
	}
	if h.NewStart, h.NewLines, err = parseRange(newR[1:]); err != nil {
		return Header{}, fmt.Errorf("hunk header %q: %w", line, err)
	}
	return h, nil
}

func parseRange(s string) (start, count int, err error) {
	a, b, hasCount := strings.Cut(s, ",")
	if start, err = strconv.Atoi(a); err != nil || start < 0 {
		return 0, 0, fmt.Errorf("bad range %q", s)
	}
	count = 1
	if hasCount {
		if count, err = strconv.Atoi(b); err != nil || count < 0 {
			return 0, 0, fmt.Errorf("bad range %q", s)
		}
	}
	return start, count, nil
}

// Op is the side(s) a body line is on: its prefix character.
type Op byte

// Line operations.
const (
	Context Op = ' ' // on both sides
	Added   Op = '+' // new side only
	Deleted Op = '-' // old side only
)

// Line is one body line of a hunk.
type Line struct {
	Op Op
	// Text is the line after its prefix, with its "\n" when it had one.
	Text string
	// Old and New are its line numbers on each side (0 on the side it is
	// not on).
	Old, New int
	// NoNewline is set when a "\ No newline at end of file" marker
	// follows the line.
	NoNewline bool
}

// Hunk is a parsed hunk.
type Hunk struct {
	Header
	Lines []Line
	// OldSeen and NewSeen count the body's lines on each side; they differ
	// from the header's counts only with a CountError.
	OldSeen, NewSeen int
}

// LineError is a body line that is none of ' ', '+', '-', '\' (nor empty).
type LineError struct {
	Index int    // of the line in the lines given to ReadHunk
	Line  string // the line, without its newline
}

func (e *LineError) Error() string { return fmt.Sprintf("unexpected line in hunk: %q", e.Line) }

// CountError is a body whose lines do not add up to the header's counts:
// the input ended first, or one side got more lines than it says.
type CountError struct{ Hunk *Hunk }

func (e *CountError) Error() string {
	h := e.Hunk
	return fmt.Sprintf("hunk at +%d: expected %d old and %d new lines, found %d and %d", h.NewStart, h.OldLines, h.NewLines, h.OldSeen, h.NewSeen)
}

// Long reports whether a side got more lines than the header says.
func (e *CountError) Long() bool {
	return e.Hunk.OldSeen > e.Hunk.OldLines || e.Hunk.NewSeen > e.Hunk.NewLines
}

// ReadHunk reads the body of the hunk with header h from lines (each ending
// in "\n" but perhaps the last, as strings.SplitAfter gives them). Lines
// are read while either side has fewer than its count, or to the end of
// the input; an empty line is an unchanged empty line (some tools strip
// its space); a "\ No newline at end of file" marker, inside or right
// after the body, marks the line before it. It returns the hunk and the
// number of lines consumed; with a *LineError or a *CountError the hunk
// read so far.
func ReadHunk(h Header, lines []string) (*Hunk, int, error) {
	hk := &Hunk{Header: h}
	oldNo, newNo := h.OldStart, h.NewStart
	i := 0
	for ; i < len(lines) && (hk.OldSeen < h.OldLines || hk.NewSeen < h.NewLines); i++ {
		l := lines[i]
		if l == "" {
			break
		}
		if l == "\n" {
			l = " \n"
		}
		line := Line{Op: Op(l[0]), Text: l[1:]}
		switch line.Op {
		case Context:
			line.Old, line.New = oldNo, newNo
			oldNo, newNo, hk.OldSeen, hk.NewSeen = oldNo+1, newNo+1, hk.OldSeen+1, hk.NewSeen+1
		case Added:
			line.New = newNo
			newNo, hk.NewSeen = newNo+1, hk.NewSeen+1
		case Deleted:
			line.Old = oldNo
			oldNo, hk.OldSeen = oldNo+1, hk.OldSeen+1
		case '\\':
			markNoNewline(hk)
			continue
		default:
			return hk, i, &LineError{Index: i, Line: strings.TrimSuffix(lines[i], "\n")}
		}
		hk.Lines = append(hk.Lines, line)
	}
	if i < len(lines) && strings.HasPrefix(lines[i], `\`) {
		markNoNewline(hk)
		i++
	}
	if hk.OldSeen != h.OldLines || hk.NewSeen != h.NewLines {
		return hk, i, &CountError{Hunk: hk}
	}
	return hk, i, nil
}

func markNoNewline(h *Hunk) {
	if n := len(h.Lines); n > 0 {
		h.Lines[n-1].NoNewline = true
	}
}
