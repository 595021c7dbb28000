package editor

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// out is where the terminal writes: every byte goes through shown, so text
// a model wrote (an approval's command, reason or diff, a question, a
// review comment, a progress line) cannot move the cursor, erase what the
// user reads, hide what follows, set the clipboard or reorder a line
// (redteam s11 04).
func (t *Terminal) out() io.Writer { return shownWriter{t.Out} }

// Shown is w with what a terminal would act on spelled out (see shown), as
// the terminal's own writes are: for the other lines Autarch prints that a
// model or an agent's files wrote, such as the CLI's progress feed
// (redteam s12 03).
func Shown(w io.Writer) io.Writer { return shownWriter{w} }

// shownWriter writes p with every character that would act on a terminal
// instead of showing shown as an escape (see shown).
type shownWriter struct{ w io.Writer }

func (s shownWriter) Write(p []byte) (int, error) {
	if _, err := s.w.Write(shown(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// shown is b with what a terminal would act on spelled out: C0 controls but
// newline and tab (\r, \x1b: cursor moves, erasing, colours, concealing,
// OSC titles, clipboard and links), DEL, C1 controls, the bidirectional
// controls that reorder a line (Trojan Source) and bytes that are not
// UTF-8. Everything else is unchanged, so ordinary text costs one pass.
func shown(b []byte) []byte {
	i := 0
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		if acts(r, n) {
			break
		}
		i += n
	}
	if i == len(b) {
		return b
	}
	out := append(make([]byte, 0, len(b)+16), b[:i]...)
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			out = fmt.Appendf(out, `\x%02x`, b[i])
		case !acts(r, n):
			out = append(out, b[i:i+n]...)
		case r == '\r':
			out = append(out, `\r`...)
		case r < 0x100:
			out = fmt.Appendf(out, `\x%02x`, r)
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += n
	}
	return out
}

// acts reports whether the rune r (n bytes long) acts on a terminal or on
// how a line is laid out rather than showing as itself.
func acts(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n <= 1:
		return true
	case r == '\n' || r == '\t':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
