// Package textsearch finds the lines of a text that match a regular
// expression, with the regexp package's semantics applied line by line,
// faster than running the regexp over every line: windows of bytes that
// every match must contain are taken from the syntax tree (literals,
// alternations of literals, small classes, case-folded), a Teddy-style
// scanner finds the candidate positions (AVX2 where the CPU has it), and a
// lazily built DFA decides the candidate lines. Patterns without such a
// window run the DFA over the whole text.
package textsearch

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"
	"regexp"
	"regexp/syntax"
	"sync"
)

// Pattern is a compiled search pattern; it is read-only and may be shared.
// Use a Searcher per goroutine.
type Pattern struct {
	// literal: a case-sensitive plain-text pattern, found with bytes.Index.
	literal []byte
	// re matches one line (without its '\n'); compiled on first use
	// (reOnce), since the DFA decides lines without it: the secret rules
	// compile hundreds of patterns and most never need their regexp.
	re     *regexp.Regexp
	reSrc  string
	reOnce sync.Once
	// scan finds candidate positions; nil: every line is a candidate.
	scan *teddy
	// exact: the pattern is one of these byte sequences, checked where
	// scan stops (no DFA).
	exact []exactSeq
	// runs: every match holds one of these byte runs where scan stops
	// (checked before the DFA decides the line).
	runs []exactSeq
	// dfa decides a line.
	dfa *dfa
}

// MaxPatternBytes caps a pattern's size: compiling and analysing a
// larger one costs seconds to minutes (a 1 MB pattern took 30 s), and no
// search needs it.
const MaxPatternBytes = 4 << 10

// ErrPatternTooLong is returned by Compile for a pattern over
// MaxPatternBytes.
var ErrPatternTooLong = errors.New("the search pattern is too long")

// Compile compiles expr (regexp syntax; with literal, plain text) for
// line-by-line search, case-insensitively unless caseSensitive. A line
// matches when the regexp matches the line's text without its '\n': ^ and
// \A match at the line's start, $ and \z at its end.
func Compile(expr string, caseSensitive, literal bool) (*Pattern, error) {
	return compile(expr, caseSensitive, literal, true)
}

// CompileLines is Compile of a regular expression for deciding short
// texts, a line or a few: the lines MatchLines finds are the same, but
// without Compile's analysis of the literal windows every match holds
// (most of compiling a large pattern), the DFA reads every byte. The
// secret gate compiles each rule that a line reaches this way.
func CompileLines(expr string, caseSensitive bool) (*Pattern, error) {
	return compile(expr, caseSensitive, false, false)
}

func compile(expr string, caseSensitive, literal, prefilter bool) (*Pattern, error) {
	if len(expr) > MaxPatternBytes {
		return nil, fmt.Errorf("%w: it is %d bytes, the limit is %d; search for a shorter, distinctive part of it",
			ErrPatternTooLong, len(expr), MaxPatternBytes)
	}
	if literal {
		if caseSensitive {
			return &Pattern{literal: []byte(expr)}, nil
		}
		expr = regexp.QuoteMeta(expr)
	}
	flags := syntax.Perl
	prefix := ""
	if !caseSensitive {
		flags |= syntax.FoldCase
		prefix = "(?i)"
	}
	p := &Pattern{reSrc: prefix + expr}
	tree, err := syntax.Parse(expr, flags)
	if err != nil {
		return nil, fmt.Errorf("parsing %q: %w", expr, err)
	}
	tree = tree.Simplify()
	if prefilter {
		if seqs, ok := exactSeqs(tree); ok {
			p.scan, p.exact = exactScan(seqs)
		} else if ws, runs := requiredWindows(tree); ws != nil {
			p.scan, p.runs = newTeddy(ws), runs
		}
	}
	prog, err := syntax.Compile(tree)
	if err != nil {
		return nil, fmt.Errorf("compiling %q: %w", expr, err)
	}
	p.dfa = newDFA(prog)
	return p, nil
}

// Regexp is the pattern's regular expression (of one line), as
// regexp.Compile makes it; nil for a case-sensitive literal.
func (p *Pattern) Regexp() *regexp.Regexp {
	if p.literal != nil {
		return nil
	}
	p.reOnce.Do(func() {
		// Compile parsed and compiled the same expression, so this cannot
		// fail; were it to, the regexp matches nothing.
		re, err := regexp.Compile(p.reSrc)
		if err != nil {
			re = regexp.MustCompile(`[^\x00-\x{10FFFF}]`)
		}
		p.re = re
	})
	return p.re
}

// Searcher is one goroutine's use of a Pattern (it holds the DFA's cache).
type Searcher struct {
	p    *Pattern
	dfa  *dfa
	cand candidates
}

// NewSearcher returns a Searcher for one goroutine.
func (p *Pattern) NewSearcher() *Searcher {
	s := &Searcher{p: p}
	if p.dfa != nil {
		s.dfa = p.dfa.clone()
	}
	return s
}

// Exhausted reports whether the Searcher has spent its work budget on a
// pattern that defeats its DFA cache (one that builds a new state at
// nearly every byte): since then regular expression lines have not
// matched, so results are incomplete. Literal patterns never exhaust it.
func (s *Searcher) Exhausted() bool { return s.dfa != nil && s.dfa.exhausted() }

// matchLine decides one candidate line.
func (s *Searcher) matchLine(line []byte) bool {
	if s.dfa != nil {
		return s.dfa.matchLine(line)
	}
	return s.p.Regexp().Match(line)
}

// MatchLines appends to dst the start offsets of the lines of data that
// match, in order. Lines end at '\n'; a final line without one counts, the
// empty string after a final '\n' does not.
func (s *Searcher) MatchLines(dst []int, data []byte) []int {
	p := s.p
	switch {
	case len(data) == 0:
		return dst
	case p.literal != nil && len(p.literal) == 0:
		return allLines(dst, data)
	case p.literal != nil && bytes.IndexByte(p.literal, '\n') >= 0:
		return dst // no line holds a newline
	case p.literal != nil:
		for off := 0; off < len(data); {
			i := bytes.Index(data[off:], p.literal)
			if i < 0 {
				break
			}
			start, end := lineBounds(data, off+i)
			dst = append(dst, start)
			off = end + 1
		}
		return dst
	case p.scan != nil:
		return s.scanLines(dst, data)
	case s.dfa != nil:
		return s.dfa.lines(dst, data)
	}
	for start := 0; start < len(data); {
		end := indexNL(data, start)
		if end < 0 {
			end = len(data)
		}
		if p.Regexp().Match(data[start:end]) {
			dst = append(dst, start)
		}
		start = end + 1
	}
	return dst
}

// scanLines is MatchLines with the scanner: each candidate whose
// sequence (exact) or run holds decides its line, and the scan goes on
// after the line; a rejected candidate costs only its check, the next
// comes from the same block of candidates.
func (s *Searcher) scanLines(dst []int, data []byte) []int {
	p := s.p
	seqs := p.runs
	if p.exact != nil {
		seqs = p.exact
	}
	c := &s.cand
	*c = candidates{t: p.scan, data: data, max: hitCap}
	for off := 0; off < len(data); {
		base, mask := c.next(off)
		if base < 0 {
			break
		}
		next := base + 32
		for mask != 0 {
			at := base + bits.TrailingZeros32(mask)
			mask &= mask - 1
			if !exactAt(seqs, data, at) {
				continue // no sequence or run of a match here
			}
			start, end := lineBounds(data, at)
			if p.exact != nil || s.matchLine(data[start:end]) {
				dst = append(dst, start)
			}
			if next = end + 1; next-base >= 32 {
				break
			}
			mask &^= 1<<(next-base) - 1
		}
		off = max(next, base+32)
	}
	c.data = nil // hold no file's bytes
	return dst
}

// indexNL is the position of the first '\n' at or after from, or -1.
func indexNL(data []byte, from int) int {
	if i := bytes.IndexByte(data[from:], '\n'); i >= 0 {
		return from + i
	}
	return -1
}

// lineBounds returns the line holding data[at]: its start and the
// position of its '\n' (or len(data)).
func lineBounds(data []byte, at int) (int, int) {
	start := bytes.LastIndexByte(data[:at], '\n') + 1
	end := indexNL(data, at)
	if end < 0 {
		end = len(data)
	}
	return start, end
}

// allLines appends every line's start.
func allLines(dst []int, data []byte) []int {
	for start := 0; start < len(data); {
		dst = append(dst, start)
		end := indexNL(data, start)
		if end < 0 {
			break
		}
		start = end + 1
	}
	return dst
}
