package textsearch

import "regexp/syntax"

// exactSeq is one byte sequence a pattern matches exactly, with the
// offset of its scanner window.
type exactSeq struct {
	seq []byteSet
	off int
}

// maxExact bounds the sequences of an exact pattern.
const maxExact = 32

// exactSeqs returns the byte sequences a pattern matches when it is a
// literal, a class or an alternation or concatenation of them whose every
// byte is ASCII (so that each position's set is exact) and holds no
// newline: a match is then an occurrence of one of the sequences, checked
// where the scanner stops, without the DFA. ok is false otherwise.
func exactSeqs(re *syntax.Regexp) (seqs [][]byteSet, ok bool) {
	switch re.Op {
	case syntax.OpLiteral, syntax.OpCharClass:
		f := analyze(re)
		if !f.fixedOK || len(f.fixed) == 0 {
			return nil, false
		}
		for _, s := range f.fixed {
			if s[2] != 0 || s[3] != 0 || s.has('\n') {
				return nil, false // bytes ≥ 0x80 are in s[2] and s[3]
			}
		}
		return [][]byteSet{f.fixed}, true
	case syntax.OpCapture:
		return exactSeqs(re.Sub[0])
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			s, ok := exactSeqs(sub)
			if !ok || len(seqs)+len(s) > maxExact {
				return nil, false
			}
			seqs = append(seqs, s...)
		}
		return seqs, true
	case syntax.OpConcat:
		seqs = [][]byteSet{nil}
		for _, sub := range re.Sub {
			s, ok := exactSeqs(sub)
			if !ok || len(seqs)*len(s) > maxExact {
				return nil, false
			}
			var next [][]byteSet
			for _, a := range seqs {
				for _, b := range s {
					next = append(next, append(append([]byteSet(nil), a...), b...))
				}
			}
			seqs = next
		}
		return seqs, true
	}
	return nil, false
}

// exactScan prepares the scanner for exact sequences: each one's least
// frequent window of the shortest length.
func exactScan(seqs [][]byteSet) (*teddy, []exactSeq) {
	k := maxWindow
	for _, s := range seqs {
		k = min(k, len(s))
	}
	ws := make([]window, len(seqs))
	out := make([]exactSeq, len(seqs))
	for i, s := range seqs {
		best := 2.0
		for o := 0; o+k <= len(s); o++ {
			if p := window(s[o : o+k]).prob(); p < best {
				best, ws[i], out[i] = p, window(s[o:o+k]), exactSeq{seq: s, off: o}
			}
		}
	}
	return newTeddy(ws), out
}

// exactAt reports whether one of the sequences occurs with its window at i.
func exactAt(seqs []exactSeq, data []byte, i int) bool {
next:
	for _, e := range seqs {
		start := i - e.off
		if start < 0 || start+len(e.seq) > len(data) {
			continue
		}
		for j := range e.seq {
			if !e.seq[j].has(data[start+j]) {
				continue next
			}
		}
		return true
	}
	return false
}
