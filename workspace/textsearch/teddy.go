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
	c := candidates{t: t, data: data, max: 1}
	base, mask := c.next(from)
	if base < 0 {
		return -1
	}
	return base + bits.TrailingZeros32(mask)
}

// hitCap is how many blocks of candidates one call of the SIMD scanner
// hands back: a call costs as much as scanning dozens of blocks, and in
// a run of digits every block of [0-9]{3} holds candidates.
const hitCap = 16

// maxBlocks bounds one call's blocks (its offsets are 32-bit).
const maxBlocks = 1 << 24

// candidates walks the blocks of 32 positions of data that hold a
// scanner candidate, scanning ahead hitCap blocks at a time.
type candidates struct {
	t    *teddy
	data []byte
	hits [hitCap]uint64
	// i and n: the hits not handed out yet, their offsets from hitsAt;
	// pos: the first position not scanned yet; max: the hits one scan
	// collects (at most hitCap).
	i, n, hitsAt, pos, max int
}

// next returns the first block at or after from that holds a candidate,
// as its first position and a mask of its candidates (bit i: position
// base+i, none before from), or base -1 when there is none. A caller that
// rejects a candidate goes on to the mask's next bit without scanning
// again.
func (c *candidates) next(from int) (base int, mask uint32) {
	from = max(from, 0)
	for {
		for c.i < c.n {
			h := c.hits[c.i]
			c.i++
			base, mask := c.hitsAt+int(h>>32), uint32(h)
			if base+32 <= from {
				continue
			}
			if base < from {
				if mask &^= 1<<(from-base) - 1; mask == 0 {
					continue
				}
			}
			return base, mask
		}
		c.pos = max(c.pos, from)
		data := c.data
		if haveSIMD && len(data)-c.pos >= simdSpan {
			blocks := min((len(data)-c.pos-simdSpan)/32+1, maxBlocks)
			n, scanned := teddyHits(&data[c.pos], blocks, &c.t.tables, &c.hits[0], c.max, c.t.k)
			c.i, c.n, c.hitsAt = 0, n, c.pos
			c.pos += scanned
			continue
		}
		for base := c.pos; base+c.t.k <= len(data); base += 32 {
			var m uint32
			for i := range min(32, len(data)-c.t.k+1-base) {
				if c.t.at(data, base+i) {
					m |= 1 << i
				}
			}
			if m != 0 {
				c.pos = base + 32
				return base, m
			}
		}
		c.pos = len(data)
		return -1, 0
	}
}
