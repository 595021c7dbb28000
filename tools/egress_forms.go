package tools

import (
	"encoding/base64"
	"encoding/binary"
)

// A value is masked in formCount forms: for x, the value as it is and
// then reversed, x itself, its hex (lower and upper case), and its base64
// at the three alignments x can have inside a longer encoded text, each
// in the standard and the URL alphabet. A form is never kept as a string:
// the value set files each one under its first 8 bytes (formKey) and
// writes it out (appendForm) only to confirm a match.
type formKind uint8

const (
	formsPerSide = 9                // as it is, hex, HEX, then base64 and base64url at offsets 0, 1, 2
	formCount    = 2 * formsPerSide // the same for the reversed value
)

// split says whether k is a form of the reversed value, and its place
// among the forms of one side (0 as is, 1 hex, 2 HEX, 3+2·off
// base64 at off, 4+2·off base64url at off).
func (k formKind) split() (reversed bool, sub int) {
	return k >= formsPerSide, int(k) % formsPerSide
}

// sideByte is byte j of x: v, or v reversed.
func sideByte(v string, rev bool, j int) byte {
	if rev {
		return v[len(v)-1-j]
	}
	return v[j]
}

// base64Lead is how many characters of the encoding of off zero bytes and
// then x depend on the zero bytes alone (they are dropped).
var base64Lead = [3]int{0, 2, 3}

// formLen is the length of form k of a value of n bytes.
func formLen(n int, k formKind) int {
	_, sub := k.split()
	switch sub {
	case 0:
		return n
	case 1, 2:
		return 2 * n
	}
	off := (sub - 3) / 2
	m := off + n
	l := (m*8+5)/6 - base64Lead[off]
	if m%3 != 0 && l > 0 {
		l-- // the last character mixes in the next byte
	}
	return max(l, 0)
}

const (
	hexLower = "0123456789abcdef"
	hexUpper = "0123456789ABCDEF"
)

// appendForm appends form k of v to dst.
func appendForm(dst []byte, v string, k formKind) []byte {
	rev, sub := k.split()
	switch sub {
	case 0:
		for j := range len(v) {
			dst = append(dst, sideByte(v, rev, j))
		}
		return dst
	case 1, 2:
		digits := hexLower
		if sub == 2 {
			digits = hexUpper
		}
		for j := range len(v) {
			b := sideByte(v, rev, j)
			dst = append(dst, digits[b>>4], digits[b&15])
		}
		return dst
	}
	off, url := (sub-3)/2, sub%2 == 0
	// The input (off zero bytes, then x) goes at p; its encoding is
	// appended after it, then moved down over it, trimmed.
	p := len(dst)
	for range off {
		dst = append(dst, 0)
	}
	for j := range len(v) {
		dst = append(dst, sideByte(v, rev, j))
	}
	m := len(dst) - p
	dst = base64.RawStdEncoding.AppendEncode(dst, dst[p:p+m])
	enc := dst[p+m:]
	n := formLen(len(v), k)
	lead := base64Lead[off]
	if lead+n > len(enc) {
		n = max(len(enc)-lead, 0)
	}
	copy(dst[p:], enc[lead:lead+n])
	dst = dst[:p+n]
	if url {
		for i := p; i < len(dst); i++ {
			switch dst[i] {
			case '+':
				dst[i] = '-'
			case '/':
				dst[i] = '_'
			}
		}
	}
	return dst
}

// formsOf calls fn with the key (first 8 bytes) and kind of each form of
// v the set files: those at least 8 bytes long whose key is not zero,
// without the upper-case hex where it equals the lower-case one, nor a
// base64url form equal to its base64 one. scratch is reused (and
// returned) for the base64 forms, which are written out whole.
func formsOf(scratch []byte, v string, fn func(key uint64, k formKind)) []byte {
	emit := func(key uint64, k formKind) {
		if key != 0 && formLen(len(v), k) >= 8 {
			fn(key, k)
		}
	}
	for _, rev := range [2]bool{false, true} {
		base := formKind(0)
		if rev {
			base = formsPerSide
		}
		if len(v) >= 8 {
			var b [8]byte
			for j := range 8 {
				b[j] = sideByte(v, rev, j)
			}
			emit(binary.LittleEndian.Uint64(b[:]), base)
		}
		if len(v) >= 4 {
			var lo, up [8]byte
			letters := false
			for j := range len(v) {
				c := sideByte(v, rev, j)
				if j < 4 {
					lo[2*j], lo[2*j+1] = hexLower[c>>4], hexLower[c&15]
					up[2*j], up[2*j+1] = hexUpper[c>>4], hexUpper[c&15]
				}
				letters = letters || c>>4 >= 10 || c&15 >= 10
			}
			emit(binary.LittleEndian.Uint64(lo[:]), base+1)
			if letters {
				emit(binary.LittleEndian.Uint64(up[:]), base+2)
			}
		}
		for off := range 3 {
			k := base + formKind(3+2*off)
			scratch = appendForm(scratch[:0], v, k)
			if len(scratch) < 8 {
				continue
			}
			emit(binary.LittleEndian.Uint64(scratch), k)
			differs := false
			for i, c := range scratch {
				switch c {
				case '+':
					differs, scratch[i] = true, '-'
				case '/':
					differs, scratch[i] = true, '_'
				}
			}
			if differs {
				emit(binary.LittleEndian.Uint64(scratch), k+1)
			}
		}
	}
	return scratch
}
