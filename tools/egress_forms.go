package tools

import (
	"encoding/base64"
	"encoding/binary"
)

// A value is masked in formCount forms. For x the value as it is, then x
// the value reversed: x, its hex (lower and upper case), and its base64
// at the three alignments x can have inside a longer encoded text, each
// in the standard and the URL alphabet. A form is never kept as a string:
// the value set files each one under its first 8 bytes (formsOf) and
// compares it byte by byte (isForm) only where a text holds those 8.
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
func base64Lead(off int) int {
	switch off {
	case 1:
		return 2
	case 2:
		return 3
	}
	return 0
}

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
	l := (m*8+5)/6 - base64Lead(off)
	if m%3 != 0 && l > 0 {
		l-- // the last character mixes in the next byte
	}
	return max(l, 0)
}

const (
	hexLower    = "0123456789abcdef"
	hexUpper    = "0123456789ABCDEF"
	alphabetStd = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	alphabetURL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
)

// formByte is byte t (below formLen) of form k of v.
func formByte(v string, k formKind, t int) byte {
	rev, sub := k.split()
	switch sub {
	case 0:
		return sideByte(v, rev, t)
	case 1, 2:
		digits := hexLower
		if sub == 2 {
			digits = hexUpper
		}
		b := sideByte(v, rev, t/2)
		if t%2 == 0 {
			return digits[b>>4]
		}
		return digits[b&15]
	}
	// Base64 of off zero bytes and then x: character t+lead holds the
	// bits from 6(t+lead) of that input, inside it for every kept one.
	off := (sub - 3) / 2
	in := func(p int) uint {
		if p < off || p-off >= len(v) {
			return 0
		}
		return uint(sideByte(v, rev, p-off))
	}
	bit := 6 * (t + base64Lead(off))
	c := (in(bit/8)<<8 | in(bit/8+1)) >> (10 - bit%8) & 63
	if sub%2 == 0 {
		return alphabetURL[c]
	}
	return alphabetStd[c]
}

// appendForm appends form k of v to dst.
func appendForm(dst []byte, v string, k formKind) []byte {
	for t := range formLen(len(v), k) {
		dst = append(dst, formByte(v, k, t))
	}
	return dst
}

// isForm reports whether hay begins with form k of v.
func isForm(hay []byte, v string, k formKind) bool {
	n := formLen(len(v), k)
	if n > len(hay) {
		return false
	}
	if k == 0 {
		return string(hay[:n]) == v
	}
	for t := range n {
		if hay[t] != formByte(v, k, t) {
			return false
		}
	}
	return true
}

// formsOf calls fn with the key (first 8 bytes) and kind of each form of
// v the set files: those at least 8 bytes long whose key is not zero.
// Only the 8 bytes are worked out. A form equal to another of v (the
// upper-case hex of digits, base64url without '+' or '/') is filed
// twice, which changes no match.
func formsOf(v string, fn func(key uint64, k formKind)) {
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
		var in [9]byte // the first bytes of x
		m := copy(in[:], v)
		if rev {
			for j := range m {
				in[j] = v[len(v)-1-j]
			}
		}
		emit(binary.LittleEndian.Uint64(in[:8]), base) // a short v: formLen rules it out
		var lo, up [8]byte
		for j, c := range in[:4] {
			lo[2*j], lo[2*j+1] = hexLower[c>>4], hexLower[c&15]
			up[2*j], up[2*j+1] = hexUpper[c>>4], hexUpper[c&15]
		}
		emit(binary.LittleEndian.Uint64(lo[:]), base+1)
		emit(binary.LittleEndian.Uint64(up[:]), base+2)
		for off := range 3 {
			// Three whole groups (9 bytes) give the first 12 characters,
			// all a key past the lead needs; a shorter v gives fewer, and
			// formLen says whether 8 are left.
			var pad [9]byte
			n := copy(pad[off:], in[:min(m, 9-off)])
			var enc [12]byte
			base64.RawStdEncoding.Encode(enc[:], pad[:off+n])
			key := enc[base64Lead(off):][:8]
			k := base + formKind(3+2*off)
			emit(binary.LittleEndian.Uint64(key), k)
			for i, c := range key {
				switch c {
				case '+':
					key[i] = '-'
				case '/':
					key[i] = '_'
				}
			}
			emit(binary.LittleEndian.Uint64(key), k+1)
		}
	}
}
