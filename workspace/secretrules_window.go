package workspace

import (
	"regexp/syntax"
	"strings"
	"unicode"
)

// Windows: on a long line (an embedded base64 blob, a generated table) a
// rule's DFA meets many bytes it has not seen, and builds a state at
// nearly each (the okta rule spent 50–150 ms on one 43 KB line of
// klauspost/compress's tests). When every match of a rule's regex holds
// one of its keywords and is at most window characters long, a match on
// an ASCII line lies within window bytes of an admitted keyword hit: the
// DFA then reads only the bytes around those hits, and the line meets
// the regex whole only when one of them may match.

// longLine is how many times a rule's window a line must be for the DFA
// to read windows instead of the line.
const longLine = 4

// windowOf is the longest match of r (parsed with syntax.Perl; nil when
// it did not parse) in characters when every match holds one of keywords
// (lower case) and has a bound; 0 otherwise.
func windowOf(r *syntax.Regexp, keywords []string) int {
	if r == nil || keywords == nil {
		return 0
	}
	n := maxChars(r)
	if n <= 0 || mustHold(r, keywords) == nil {
		return 0
	}
	return n
}

// maxChars is the most characters r matches, −1 when unbounded.
func maxChars(r *syntax.Regexp) int {
	switch r.Op {
	case syntax.OpLiteral:
		return len(r.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpQuest:
		return maxChars(r.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return -1
	case syntax.OpRepeat:
		m := maxChars(r.Sub[0])
		if r.Max < 0 || m < 0 {
			return -1
		}
		return r.Max * m
	case syntax.OpConcat, syntax.OpAlternate:
		n := 0
		for _, s := range r.Sub {
			m := maxChars(s)
			if m < 0 {
				return -1
			}
			if r.Op == syntax.OpConcat {
				n += m
			} else {
				n = max(n, m)
			}
		}
		return n
	}
	return 0 // empty-width assertions, the empty match
}

// exactText is the one text r matches, ASCII case folded to lower case,
// when it matches one (a literal, a class of a letter's two cases).
func exactText(r *syntax.Regexp) (string, bool) {
	switch r.Op {
	case syntax.OpLiteral:
		for _, c := range r.Rune {
			if c >= 0x80 {
				return "", false
			}
		}
		return strings.ToLower(string(r.Rune)), true
	case syntax.OpCharClass:
		switch {
		case len(r.Rune) == 2 && r.Rune[0] == r.Rune[1] && r.Rune[0] < 0x80:
			return strings.ToLower(string(r.Rune[0])), true
		case len(r.Rune) == 4 && r.Rune[0] == r.Rune[1] && r.Rune[2] == r.Rune[3] && r.Rune[2] < 0x80 &&
			unicode.SimpleFold(r.Rune[0]) == r.Rune[2]:
			return strings.ToLower(string(r.Rune[0])), true
		}
	case syntax.OpCapture:
		return exactText(r.Sub[0])
	case syntax.OpConcat:
		var b strings.Builder
		for _, s := range r.Sub {
			t, ok := exactText(s)
			if !ok {
				return "", false
			}
			b.WriteString(t)
		}
		return b.String(), true
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpEmptyMatch:
		return "", true
	}
	return "", false
}

// mustHold is a set of texts (lower case) one of which every match of r
// holds, each holding one of keywords; nil when none is found.
func mustHold(r *syntax.Regexp, keywords []string) []string {
	holdsKeyword := func(t string) bool {
		for _, k := range keywords {
			if strings.Contains(t, k) {
				return true
			}
		}
		return false
	}
	if t, ok := exactText(r); ok {
		if holdsKeyword(t) {
			return []string{t}
		}
		return nil
	}
	switch r.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return mustHold(r.Sub[0], keywords)
	case syntax.OpRepeat:
		if r.Min >= 1 {
			return mustHold(r.Sub[0], keywords)
		}
	case syntax.OpAlternate:
		var all []string
		for _, s := range r.Sub {
			set := mustHold(s, keywords)
			if set == nil {
				return nil
			}
			all = append(all, set...)
		}
		return all
	case syntax.OpConcat:
		// Runs of exact parts, read as one text, then each part alone.
		var run strings.Builder
		for _, s := range r.Sub {
			if t, ok := exactText(s); ok {
				run.WriteString(t)
				if holdsKeyword(run.String()) {
					return []string{run.String()}
				}
				continue
			}
			run.Reset()
		}
		for _, s := range r.Sub {
			if set := mustHold(s, keywords); set != nil {
				return set
			}
		}
	}
	return nil
}

// windowsMayMatch reports whether rule r's regex may match line (at
// data[start:], ASCII) within its window of one of the hits (their end
// positions in data).
func (r *rule) windowsMayMatch(data []byte, start int, line []byte, hits []int) bool {
	w := r.window + 1
	from, to := -1, -1
	check := func() bool {
		if from < 0 {
			return false
		}
		part := line[from:to]
		return r.need.holds(part) && r.re.mayMatch(part)
	}
	for _, p := range hits {
		p -= start
		lo, hi := max(p-w, 0), min(p+w+1, len(line))
		if lo > to { // a new window: decide the last
			if check() {
				return true
			}
			from = lo
		}
		to = hi
	}
	return check()
}
