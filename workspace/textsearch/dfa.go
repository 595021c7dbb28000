package textsearch

import (
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// dfa decides whether a line matches, built lazily from the regexp's
// program (as RE2's DFA is): a state is the set of program positions
// waiting at the current position, before the empty-width conditions
// there are known; stepping on a rune first follows the empty-width
// instructions the position satisfies (line start and end, word
// boundaries from the previous and the next rune), then the rune. The
// unanchored start joins at every position. ASCII transitions are cached;
// other runes are decoded and stepped each time (rare in source). It only
// tells whether the line holds a match.
type dfa struct {
	prog *syntax.Prog
	// One goroutine's cache.
	states map[string]*dstate
	start  *dstate
	// matched is the state after a match: the line is decided.
	matched *dstate
	// scratch for closures.
	seen     []bool
	stack    []uint32
	expanded []uint32
	next     []uint32
	key      []byte
	// work counts the cost of the states built (what a pattern that
	// defeats the cache costs: a state per byte); past maxWork every step
	// leads to dead, which matches nothing.
	work int
	dead *dstate
}

// dstate is one DFA state. next[b] is the state after ASCII byte b, nil
// when not computed yet, for '\n' and for bytes ≥ 0x80, so the hot loop
// tests one pointer per byte.
type dstate struct {
	next [256]*dstate
	// runes caches the steps over non-ASCII runes.
	runes map[rune]*dstate
	insts []uint32
	// atStart: the position is the line's start; prevWord: the rune
	// before it is a word character.
	atStart, prevWord bool
	// matchEnd: the line matches if it ends here.
	matchEnd bool
}

// maxStates bounds one cache; it is emptied when full.
const maxStates = 2000

// maxWork bounds the work one DFA spends building states over its life,
// counted as the state's instructions plus stateCost each. A pattern the
// cache serves (nearly every real one) builds a few hundred states and
// stays far below it (the benchmark's queries over $(go env GOROOT)/src
// use under 0.1%); one that builds a new state at nearly every byte
// (a[a-j]{800}$ over random text) would otherwise take minutes on a 10 MB
// line, and gives up in well under a second.
const (
	maxWork   = 4 << 20
	stateCost = 64
)

const (
	beginFlags = syntax.EmptyBeginLine | syntax.EmptyBeginText
	endFlags   = syntax.EmptyEndLine | syntax.EmptyEndText
)

func newDFA(prog *syntax.Prog) *dfa {
	d := &dfa{prog: prog, seen: make([]bool, len(prog.Inst)), matched: &dstate{matchEnd: true}, dead: &dstate{}}
	for b := range d.dead.next {
		d.dead.next[b] = d.dead
	}
	d.reset()
	return d
}

// exhausted reports whether the DFA spent its work budget: since then it
// has matched nothing.
func (d *dfa) exhausted() bool { return d.work > maxWork }

// clone gives another goroutine its own cache.
func (d *dfa) clone() *dfa { return newDFA(d.prog) }

func (d *dfa) reset() {
	d.states = map[string]*dstate{}
	d.start = nil
}

// begin is the state at a line's start.
func (d *dfa) begin() *dstate {
	if d.start == nil {
		s := d.intern([]uint32{uint32(d.prog.Start)}, true, false)
		d.start = s
	}
	return d.start
}

// expand returns the rune and match instructions reachable from s's
// instructions through the empty-width instructions that flags satisfy.
func (d *dfa) expand(s *dstate, flags syntax.EmptyOp) []uint32 {
	out := d.expanded[:0]
	d.stack = append(d.stack[:0], s.insts...)
	for len(d.stack) > 0 {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.seen[pc] {
			continue
		}
		d.seen[pc] = true
		in := &d.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop:
			d.stack = append(d.stack, in.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^flags == 0 {
				d.stack = append(d.stack, in.Out)
			}
		case syntax.InstFail:
		default:
			out = append(out, pc)
		}
	}
	clear(d.seen)
	d.expanded = out
	return out
}

// flagsAt are the empty-width conditions at s's position when the next
// rune is a word character (nextWord) or not.
func flagsAt(s *dstate, nextWord bool) syntax.EmptyOp {
	var f syntax.EmptyOp
	if s.atStart {
		f |= beginFlags
	}
	if s.prevWord != nextWord {
		f |= syntax.EmptyWordBoundary
	} else {
		f |= syntax.EmptyNoWordBoundary
	}
	return f
}

func (d *dfa) hasMatch(pcs []uint32) bool {
	for _, pc := range pcs {
		if d.prog.Inst[pc].Op == syntax.InstMatch {
			return true
		}
	}
	return false
}

// intern returns the state for a set of instructions.
func (d *dfa) intern(set []uint32, atStart, prevWord bool) *dstate {
	slices.Sort(set)
	set = slices.Compact(set)
	d.key = append(d.key[:0], b2u(atStart)|b2u(prevWord)<<1)
	for _, pc := range set {
		d.key = binary.LittleEndian.AppendUint32(d.key, pc)
	}
	if s, ok := d.states[string(d.key)]; ok {
		return s
	}
	if len(d.states) >= maxStates {
		// Start over; the line in progress keeps its states, and the
		// next line starts from a new start state (begin).
		d.reset()
	}
	s := &dstate{insts: slices.Clone(set), atStart: atStart, prevWord: prevWord}
	s.matchEnd = d.hasMatch(d.expand(s, flagsAt(s, false)|endFlags))
	d.work += 2*len(set) + stateCost
	d.states[string(d.key)] = s
	return s
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// step returns the state after rune r, or d.matched when a match ends
// before r.
func (d *dfa) step(s *dstate, r rune) *dstate {
	if d.exhausted() {
		return d.dead
	}
	word := r < utf8.RuneSelf && syntax.IsWordChar(r)
	next := d.next[:0]
	for _, pc := range d.expand(s, flagsAt(s, word)) {
		in := &d.prog.Inst[pc]
		if in.Op == syntax.InstMatch {
			return d.matched
		}
		if in.MatchRune(r) {
			next = append(next, in.Out)
		}
	}
	next = append(next, uint32(d.prog.Start))
	d.next = next
	return d.intern(next, false, word)
}

// transition is step for the rune at data[i], caching ASCII steps; it
// returns the next state and the byte length of the rune read.
func (d *dfa) transition(s *dstate, data []byte, i int) (*dstate, int) {
	b := data[i]
	if b < utf8.RuneSelf {
		n := d.step(s, rune(b))
		s.next[b] = n
		return n, 1
	}
	r, size := utf8.DecodeRune(data[i:])
	if n, ok := s.runes[r]; ok {
		return n, size
	}
	n := d.step(s, r)
	if s.runes == nil {
		s.runes = map[rune]*dstate{}
	}
	if len(s.runes) < maxRunes {
		s.runes[r] = n
	}
	return n, size
}

// maxRunes bounds each state's cache of non-ASCII steps.
const maxRunes = 256

// matchLine reports whether line (without its '\n') holds a match.
func (d *dfa) matchLine(line []byte) bool {
	s := d.begin()
	for i := 0; i < len(line); {
		if n := s.next[line[i]]; n != nil {
			s = n
			i++
			continue
		}
		if s == d.matched {
			return true
		}
		s, i = d.advance(s, line, i)
	}
	return s.matchEnd
}

// advance steps over the rune at data[i].
func (d *dfa) advance(s *dstate, data []byte, i int) (*dstate, int) {
	n, size := d.transition(s, data, i)
	return n, i + size
}

// lines appends the start offsets of the lines of data that hold a match.
func (d *dfa) lines(dst []int, data []byte) []int {
	s := d.begin()
	lineStart := 0
	for i := 0; i < len(data); {
		b := data[i]
		if n := s.next[b]; n != nil {
			s = n
			i++
			continue
		}
		switch {
		case b == '\n':
			if s.matchEnd {
				dst = append(dst, lineStart)
			}
			i++
			lineStart, s = i, d.begin()
		case s == d.matched:
			dst = append(dst, lineStart)
			nl := indexNL(data, i)
			if nl < 0 {
				return dst
			}
			i = nl + 1
			lineStart, s = i, d.begin()
		default:
			s, i = d.advance(s, data, i)
		}
	}
	if lineStart < len(data) && s.matchEnd {
		dst = append(dst, lineStart)
	}
	return dst
}
