package textsearch

import (
	"math/bits"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// byteSet is a set of byte values.
type byteSet [4]uint64

func (s *byteSet) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }
func (s *byteSet) union(o byteSet) {
	s[0], s[1], s[2], s[3] = s[0]|o[0], s[1]|o[1], s[2]|o[2], s[3]|o[3]
}
func (s *byteSet) len() int {
	return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) + bits.OnesCount64(s[2]) + bits.OnesCount64(s[3])
}
func singleton(b byte) (s byteSet) { s.add(b); return s }
func (s *byteSet) each(f func(b byte)) {
	for i := range 256 {
		if s.has(byte(i)) {
			f(byte(i))
		}
	}
}

// prob estimates how often a byte of the set occurs in source text.
func (s *byteSet) prob() float64 {
	p := 0
	s.each(func(b byte) { p += int(byteFreq[b]) })
	return float64(p) / 65536
}

// window is a run of byte positions every match of some part of a pattern
// contains: byte i of the run is in window[i].
type window []byteSet

func (w window) prob() float64 {
	p := 1.0
	for i := range w {
		p *= w[i].prob()
	}
	return p
}

// maxWindow is the longest window the scanner checks (Teddy-style, three
// bytes per candidate position).
const maxWindow = 3

// reqWindow is a window every match of some part of a pattern contains,
// with the run of byte positions around it that the match contains too:
// the scanner looks for the window, and a candidate without the run is
// no match (checked before the DFA).
type reqWindow struct {
	w   window
	run []byteSet
	off int // where w starts in run
}

// maxVerify bounds the run kept around a window.
const maxVerify = 32

// bestWindow returns the least frequent window of at most maxWindow bytes
// of a run (ok false for an empty run), with the run around it.
func bestWindow(run []byteSet) (reqWindow, bool) {
	k := min(len(run), maxWindow)
	if k == 0 {
		return reqWindow{}, false
	}
	best := -1
	bp := 2.0
	for i := 0; i+k <= len(run); i++ {
		if p := window(run[i : i+k]).prob(); p < bp {
			best, bp = i, p
		}
	}
	lo := max(0, min(best-(maxVerify-k)/2, len(run)-maxVerify))
	hi := min(len(run), lo+maxVerify)
	return reqWindow{w: run[best : best+k], run: run[lo:hi], off: best - lo}, true
}

// facts are what the prefilter knows about a syntax node.
type facts struct {
	// fixed: every match is len(fixed) bytes, byte i in fixed[i]
	// (valid when fixedOK; an empty fixed is a zero-width node).
	fixed   []byteSet
	fixedOK bool
	// req: every match contains a run matching one of these windows
	// (nil: nothing known).
	req []reqWindow
	// prefix and suffix: every match starts (ends) with a run of these
	// byte positions, when it is not fixed (empty: nothing known). A
	// concatenation joins a part's suffix, the fixed parts after it and
	// the next part's prefix into one run: [a-z]+[0-9]{3,} holds a letter
	// and three digits in a row.
	prefix, suffix []byteSet
}

// head is the run every match of the node starts with.
func (f *facts) head() []byteSet {
	if f.fixedOK {
		return f.fixed
	}
	return f.prefix
}

// tail is the run every match of the node ends with.
func (f *facts) tail() []byteSet {
	if f.fixedOK {
		return f.fixed
	}
	return f.suffix
}

// maxFixed bounds the fixed runs tracked; maxWindows the alternatives.
const (
	maxFixed   = 64
	maxWindows = 32
)

func score(req []reqWindow) float64 {
	if req == nil {
		return 2
	}
	s := 0.0
	for _, r := range req {
		s += r.w.prob()
	}
	return s
}

// runCost is what a candidate whose run matches costs, against a stop
// of the scanner: the DFA decides its line.
const runCost = 100

// cost estimates what searching with windows costs per byte: the
// scanner's stops at their windows, and the DFA's work on candidates
// that hold the run around one. Of two parts of a concatenation whose
// windows are as rare, the one in a longer run ("context(" against
// "func ") leaves the DFA fewer lines.
func cost(req []reqWindow) float64 {
	c := 0.0
	for _, r := range req {
		c += r.w.prob() + runCost*window(r.run).prob()
	}
	return c
}

// runesBytes describes where a rune from a set (with fold, also its case
// variants) lies in a match. When all have one UTF-8 length n, fixed holds
// n positions (byte i of any of them is in fixed[i]). Otherwise fixed is
// nil and first and last are the sets of their first and last bytes: the
// run before them ends with first, the run after them starts with last.
// ok is false for sets too large to enumerate.
func runesBytes(ranges []rune, fold bool) (fixed []byteSet, first, last byteSet, ok bool) {
	n, count := -1, 0
	var buf [utf8.UTFMax]byte
	var pos [utf8.UTFMax]byteSet
	add := func(r rune) bool {
		if count++; count > maxClassRunes {
			return false
		}
		k := utf8.EncodeRune(buf[:], r)
		if n == -1 {
			n = k
		} else if n != k {
			n = 0
		}
		for i := range k {
			pos[i].add(buf[i])
		}
		first.add(buf[0])
		last.add(buf[k-1])
		return true
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if !add(r) {
				return nil, first, last, false
			}
			if !fold {
				continue
			}
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				if !add(f) {
					return nil, first, last, false
				}
			}
		}
	}
	if n > 0 {
		fixed = append([]byteSet(nil), pos[:n]...)
	}
	return fixed, first, last, n >= 0
}

// maxClassRunes bounds the runes of a class the prefilter looks at.
const maxClassRunes = 512

// runeRun is a run of byte positions being built, with the runs closed so
// far.
type runeRun struct {
	runs  [][]byteSet
	run   []byteSet
	whole bool
}

// add appends one rune set's positions; a set of mixed lengths closes the
// run with its first bytes and opens the next with its last.
func (rr *runeRun) add(ranges []rune, fold bool) bool {
	fixed, first, last, ok := runesBytes(ranges, fold)
	switch {
	case !ok:
		return false
	case fixed != nil:
		rr.run = append(rr.run, fixed...)
	default:
		rr.whole = false
		rr.runs = append(rr.runs, append(rr.run, first))
		rr.run = []byteSet{last}
	}
	return true
}

// facts turns the runs into a node's facts.
func (rr *runeRun) facts() facts {
	var f facts
	if rr.whole && len(rr.run) <= maxFixed {
		f.fixed, f.fixedOK = rr.run, true
	}
	for _, r := range append(rr.runs, rr.run) {
		if w, ok := bestWindow(r); ok && (f.req == nil || w.w.prob() < score(f.req)) {
			f.req = []reqWindow{w}
		}
	}
	if !f.fixedOK {
		f.prefix = capHead(append(rr.runs, rr.run)[0])
		f.suffix = capTail(rr.run)
	}
	return f
}

// analyze computes a node's facts from the simplified syntax tree.
func analyze(re *syntax.Regexp) facts {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return facts{fixed: []byteSet{}, fixedOK: true}
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		rr := runeRun{whole: true}
		for _, r := range re.Rune {
			if !rr.add([]rune{r, r}, fold) {
				return facts{}
			}
		}
		return rr.facts()
	case syntax.OpCharClass:
		rr := runeRun{whole: true}
		if len(re.Rune) == 0 || !rr.add(re.Rune, false) {
			return facts{}
		}
		return rr.facts()
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpPlus:
		return repeated(analyze(re.Sub[0]))
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return repeated(analyze(re.Sub[0]))
		}
	case syntax.OpConcat:
		return analyzeConcat(re.Sub)
	case syntax.OpAlternate:
		return analyzeAlternate(re.Sub)
	}
	return facts{}
}

// repeated is the facts of one or more matches of a node: the windows
// and the ends of one.
func repeated(f facts) facts {
	return facts{req: f.req, prefix: capHead(f.head()), suffix: capTail(f.tail())}
}

// capHead and capTail keep at most maxFixed positions of a run at a
// match's start or end.
func capHead(run []byteSet) []byteSet { return run[:min(len(run), maxFixed)] }
func capTail(run []byteSet) []byteSet { return run[len(run)-min(len(run), maxFixed):] }

func analyzeConcat(subs []*syntax.Regexp) facts {
	out := facts{fixedOK: true, fixed: []byteSet{}}
	var best []reqWindow
	consider := func(req []reqWindow) {
		if req != nil && (best == nil || cost(req) < cost(best)) {
			best = req
		}
	}
	// run holds the byte positions known to lie in a row up to the
	// current part; fromStart: it starts at the match's start.
	var run []byteSet
	fromStart := true
	for _, sub := range subs {
		f := analyze(sub)
		if f.fixedOK && len(run)+len(f.fixed) <= maxFixed {
			run = append(run, f.fixed...)
		} else {
			out.fixedOK = false
			if !f.fixedOK {
				run = append(run, f.prefix[:min(len(f.prefix), maxFixed-len(run))]...)
			}
			if fromStart {
				out.prefix = slices.Clone(run)
				fromStart = false
			}
			if w, ok := bestWindow(run); ok {
				consider([]reqWindow{w})
			}
			run = slices.Clone(capTail(f.tail()))
		}
		consider(f.req)
	}
	if w, ok := bestWindow(run); ok {
		consider([]reqWindow{w})
	}
	if out.fixedOK {
		out.fixed = run
	} else {
		out.fixed = nil
		out.suffix = run
	}
	out.req = best
	return out
}

func analyzeAlternate(subs []*syntax.Regexp) facts {
	var out facts
	out.fixedOK = true
	all := make([]facts, len(subs))
	for i, sub := range subs {
		f := analyze(sub)
		all[i] = f
		if f.req == nil || len(out.req)+len(f.req) > maxWindows {
			out.req = nil
			out.fixedOK = false
			// Keep going only to learn nothing more: one branch without
			// a required window makes the whole alternation unknown.
			return facts{}
		}
		out.req = append(out.req, f.req...)
		switch {
		case !f.fixedOK || !out.fixedOK:
			out.fixedOK = false
		case i == 0:
			out.fixed = append([]byteSet(nil), f.fixed...)
		case len(f.fixed) != len(out.fixed):
			out.fixedOK = false
		default:
			for j := range out.fixed {
				out.fixed[j].union(f.fixed[j])
			}
		}
	}
	if !out.fixedOK {
		out.fixed = nil
		out.prefix, out.suffix = commonEnds(all)
	}
	return out
}

// commonEnds is the run every branch of an alternation starts with and
// the run every branch ends with: position by position, the union of the
// branches' sets, as long as the shortest branch's.
func commonEnds(all []facts) (prefix, suffix []byteSet) {
	for i := range all {
		head, tail := all[i].head(), all[i].tail()
		if i == 0 {
			prefix, suffix = slices.Clone(head), slices.Clone(tail)
			continue
		}
		prefix = prefix[:min(len(prefix), len(head))]
		for j := range prefix {
			prefix[j].union(head[j])
		}
		suffix = suffix[len(suffix)-min(len(suffix), len(tail)):]
		for j := range suffix {
			suffix[j].union(tail[len(tail)-len(suffix)+j])
		}
	}
	return prefix, suffix
}

// requiredWindows returns windows one of which every match of re
// contains, truncated to one length, or nil when none is known or they
// would match too often to pay off; runs are the byte runs around them,
// one of which a match holds where the scanner finds its window.
func requiredWindows(re *syntax.Regexp) (ws []window, runs []exactSeq) {
	req := analyze(re).req
	if req == nil || score(req) > 0.08 {
		return nil, nil
	}
	k := maxWindow
	for _, r := range req {
		k = min(k, len(r.w))
	}
	ws = make([]window, len(req))
	runs = make([]exactSeq, len(req))
	for i, r := range req {
		o := bestSub(r.w, k)
		ws[i] = r.w[o : o+k]
		runs[i] = exactSeq{seq: r.run, off: r.off + o}
	}
	return ws, runs
}

// bestSub is where the least frequent k-byte part of w starts.
func bestSub(w window, k int) int {
	best := 0
	bp := 2.0
	for i := 0; i+k <= len(w); i++ {
		if p := w[i : i+k].prob(); p < bp {
			best, bp = i, p
		}
	}
	return best
}
