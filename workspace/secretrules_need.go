package workspace

import (
	"regexp/syntax"
	"unicode"
)

// A line need is what every match of a rule's regex holds, checked on a
// line before the regex's DFA sees it: a run of consecutive bytes, each
// in a set, taken from the regex's mandatory parts
// (`dapi[a-f0-9]{32}` needs "dapi" then 32 hex digits; `"[a-z0-9=_\-]{8,20}"`
// a quote, 8 to 20 of the class and a quote). Most lines a keyword sends
// to a rule hold no such run, and a DFA meeting a new line builds new
// states (microseconds a line), where the check costs a table lookup a
// byte. A line with a byte ≥ 0x80 is always passed on: a character is
// then more than a byte, and (?i) folds K and ſ into ASCII letters.

// needElem is one part of a need: between min and max (−1: no bound)
// bytes of set.
type needElem struct {
	set      *[256]bool
	min, max int
	// disjointNext: the next part's set shares no byte with this one's,
	// so a variable run ends at the first byte outside set.
	disjointNext bool
}

// lineNeed is a rule's need: its parts in order, adjacent in every match.
type lineNeed struct {
	elems []needElem
}

// minNeedBytes is the least length of a need worth checking.
const minNeedBytes = 6

// needOf derives a line need from a regex (parsed with syntax.Perl; nil
// when it did not parse), or nil when it has none worth checking (a
// top-level alternation, no run of minNeedBytes).
func needOf(re *syntax.Regexp) *lineNeed {
	if re == nil {
		return nil
	}
	var flat []*syntax.Regexp
	var splice func(r *syntax.Regexp)
	splice = func(r *syntax.Regexp) {
		switch r.Op {
		case syntax.OpConcat:
			for _, s := range r.Sub {
				splice(s)
			}
		case syntax.OpCapture:
			splice(r.Sub[0])
		default:
			flat = append(flat, r)
		}
	}
	splice(re)
	// Parts, with nil for what breaks adjacency.
	var parts []*needElem
	for _, r := range flat {
		switch r.Op {
		case syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
			continue // no width: the parts around it stay adjacent
		case syntax.OpLiteral:
			for _, c := range r.Rune {
				set, ok := runeSet(c, r.Flags&syntax.FoldCase != 0)
				if !ok {
					parts = append(parts, nil)
					continue
				}
				parts = append(parts, &needElem{set: set, min: 1, max: 1})
			}
			continue
		}
		set, lo, hi, ok := singleRun(r)
		if !ok || lo == 0 {
			parts = append(parts, nil)
			continue
		}
		parts = append(parts, &needElem{set: set, min: lo, max: hi})
	}
	// Segments: runs of parts without a break, where a variable part
	// ends its segment unless the next part's set is disjoint from its.
	var best []needElem
	bestLen := 0
	var seg []needElem
	segLen := 0
	closeSeg := func() {
		if segLen > bestLen {
			best, bestLen = seg, segLen
		}
		seg, segLen = nil, 0
	}
	for i, p := range parts {
		if p == nil {
			closeSeg()
			continue
		}
		e := *p
		variable := e.min != e.max
		if variable && i+1 < len(parts) && parts[i+1] != nil && disjoint(e.set, parts[i+1].set) {
			e.disjointNext = true
		}
		seg = append(seg, e)
		segLen += e.min
		if variable && !e.disjointNext {
			closeSeg()
		}
	}
	closeSeg()
	if bestLen < minNeedBytes {
		return nil
	}
	if last := &best[len(best)-1]; last.disjointNext {
		last.disjointNext = false // what follows is not checked
	}
	return &lineNeed{elems: best}
}

// runeSet is the ASCII bytes c matches (with its case folds); false when
// c is not ASCII.
func runeSet(c rune, fold bool) (*[256]bool, bool) {
	if c >= 0x80 {
		return nil, false
	}
	set := new([256]bool)
	set[c] = true
	if fold {
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if f < 0x80 {
				set[f] = true
			}
		}
	}
	return set, true
}

// singleRun is r as a run of one-character matches: the set of ASCII
// bytes the character may be, and the run's least and most length (hi
// −1: no bound).
func singleRun(r *syntax.Regexp) (set *[256]bool, lo, hi int, ok bool) {
	one := func(r *syntax.Regexp) (*[256]bool, bool) {
		switch r.Op {
		case syntax.OpLiteral:
			if len(r.Rune) != 1 {
				return nil, false
			}
			return runeSet(r.Rune[0], r.Flags&syntax.FoldCase != 0)
		case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
			s := new([256]bool)
			if !byteSet(r, s) {
				return nil, false
			}
			if r.Op == syntax.OpAnyCharNotNL {
				s['\n'] = false
			}
			return s, true
		}
		return nil, false
	}
	switch r.Op {
	case syntax.OpRepeat:
		s, ok := one(r.Sub[0])
		return s, r.Min, r.Max, ok
	case syntax.OpPlus:
		s, ok := one(r.Sub[0])
		return s, 1, -1, ok
	case syntax.OpStar, syntax.OpQuest:
		return nil, 0, 0, false
	}
	s, ok := one(r)
	return s, 1, 1, ok
}

// disjoint reports whether two byte sets share no byte.
func disjoint(a, b *[256]bool) bool {
	for c := range a {
		if a[c] && b[c] {
			return false
		}
	}
	return true
}

// holds reports whether line may hold a match: false only when it holds
// no byte ≥ 0x80 and no run of the need's parts.
func (n *lineNeed) holds(line []byte) bool {
	if n == nil || hasHighByte(line) {
		return true
	}
	var memo needMemo
	first := n.elems[0]
	if first.min != first.max {
		// A variable first part: every start inside a run of its set
		// ends the run at the same byte, so each run is tried once.
		for i := 0; i < len(line); {
			if !first.set[line[i]] {
				i++
				continue
			}
			j := i + 1
			for j < len(line) && first.set[line[j]] {
				j++
			}
			if j-i >= first.min && n.matchFrom(line, 1, j, &memo) {
				return true
			}
			i = j + 1
		}
		return false
	}
	for i := 0; i+first.min <= len(line); i++ {
		if first.set[line[i]] && n.matchFrom(line, 0, i, &memo) {
			return true
		}
	}
	return false
}

// needMemo remembers, for each of the first parts, the last run of its
// set found (start and end): a later start inside it ends there too, so
// a long run is not walked again from each of its bytes.
type needMemo [16]struct{ start, end int }

// matchFrom reports whether the parts from k on match line at at.
func (n *lineNeed) matchFrom(line []byte, k, at int, memo *needMemo) bool {
	for idx, e := range n.elems[k:] {
		idx += k
		if e.min == e.max || !e.disjointNext {
			if at+e.min > len(line) {
				return false
			}
			for _, c := range line[at : at+e.min] {
				if !e.set[c] {
					return false
				}
			}
			at += e.min
			continue
		}
		// A variable part followed by a disjoint one: the whole run.
		j := at
		if idx < len(memo) && memo[idx].end > 0 && at >= memo[idx].start && at < memo[idx].end {
			j = memo[idx].end
		} else {
			for j < len(line) && e.set[line[j]] {
				j++
			}
			if idx < len(memo) {
				memo[idx].start, memo[idx].end = at, j
			}
		}
		if j-at < e.min || e.max >= 0 && j-at > e.max {
			return false
		}
		at = j
	}
	return true
}
