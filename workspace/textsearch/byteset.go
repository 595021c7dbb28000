package textsearch

// ByteFinder finds the first byte of a set with the Teddy scanner (one
// pass of nibble lookups; AVX2 where the CPU has it). It is read-only.
type ByteFinder struct {
	t *teddy
	// exact reports whether the nibble tables describe the set exactly;
	// when not, candidates are checked against set.
	set   byteSet
	exact bool
}

// NewByteFinder returns a finder for the given bytes.
func NewByteFinder(bs ...byte) *ByteFinder {
	var set byteSet
	for _, b := range bs {
		set.add(b)
	}
	// One bucket per high nibble: exact as long as there are at most 8.
	var ws []window
	byHigh := map[byte]*byteSet{}
	var order []byte
	set.each(func(b byte) {
		h := b >> 4
		if byHigh[h] == nil {
			byHigh[h] = &byteSet{}
			order = append(order, h)
		}
		byHigh[h].add(b)
	})
	for _, h := range order {
		ws = append(ws, window{*byHigh[h]})
	}
	f := &ByteFinder{set: set, exact: len(ws) <= 8}
	if len(ws) == 0 {
		ws = []window{{byteSet{}}}
	}
	f.t = newTeddy(ws)
	return f
}

// Index returns the position of the first byte of data in the set, or -1.
func (f *ByteFinder) Index(data []byte) int {
	for from := 0; ; {
		i := f.t.find(data, from)
		if i < 0 || f.exact || f.set.has(data[i]) {
			return i
		}
		from = i + 1
	}
}
