package textsearch

import "math/bits"

// teddy finds candidate positions for a set of windows with one pass of
// nibble lookups (the idea of Hyperscan's and ripgrep's Teddy): each byte
// of a window position is split into its low and high nibble, each looked
// up in a 16-entry table of bucket bits; a position is a candidate when
// the bits of all its k bytes share a bucket. Windows are spread over 8
// buckets. Candidates are a superset of the windows' occurrences (nibble
// pairs combine), so every candidate is checked.
type teddy struct {
	k int
	// tables[2p] and tables[2p+1] are the low- and high-nibble tables of
	// position p, each 16 bytes repeated twice (one per AVX2 lane);
	// positions at or past k accept every byte.
	tables [2 * maxWindow][32]byte
}

func newTeddy(ws []window) *teddy {
	t := &teddy{k: len(ws[0])}
	for p := range maxWindow {
		lo, hi := &t.tables[2*p], &t.tables[2*p+1]
		if p >= t.k {
			for i := range lo {
				lo[i], hi[i] = 0xff, 0xff
			}
			continue
		}
		for j, w := range ws {
			bit := byte(1) << (j % 8)
			w[p].each(func(b byte) {
				lo[b&15] |= bit
				lo[16+b&15] |= bit
				hi[b>>4] |= bit
				hi[16+b>>4] |= bit
			})
		}
	}
	return t
}

// at reports whether position i is a candidate (i+k ≤ len(data)).
func (t *teddy) at(data []byte, i int) bool {
	m := byte(0xff)
	for p := range t.k {
		b := data[i+p]
		m &= t.tables[2*p][b&15] & t.tables[2*p+1][b>>4]
	}
	return m != 0
}

// find returns the first candidate position at or after from, or -1.
func (t *teddy) find(data []byte, from int) int {
	base, mask := t.block(data, from)
	if base < 0 {
		return -1
	}
	return base + bits.TrailingZeros32(mask)
}

// block returns the first block of 32 positions at or after from that
// holds a candidate, as its first position and a mask of its candidates
// (bit i: position base+i), or base -1. A caller that rejects a candidate
// goes on to the mask's next bit without scanning again: in a run of
// digits every position of [0-9]{3} is a candidate.
func (t *teddy) block(data []byte, from int) (base int, mask uint32) {
	if from < 0 {
		from = 0
	}
	if haveSIMD && len(data)-from >= simdSpan {
		blocks := (len(data)-from-simdSpan)/32 + 1
		if off, m := teddySIMD(&data[from], blocks, &t.tables); off >= 0 {
			return from + off, m
		}
		from += blocks * 32
	}
	for base := from; base+t.k <= len(data); base += 32 {
		var m uint32
		for i := range min(32, len(data)-t.k+1-base) {
			if t.at(data, base+i) {
				m |= 1 << i
			}
		}
		if m != 0 {
			return base, m
		}
	}
	return -1, 0
}
