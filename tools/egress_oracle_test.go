package tools

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strings"
)

// The value set before forms were filed by key (kept as the oracle the
// new one is checked against): every form of every value as a string, in
// an open-addressing table keyed by its first 8 bytes.

// valueForms are the forms a value is masked in: as it is and reversed,
// each also hex (both cases) and base64 (standard and URL alphabet, at the
// three alignments it can have inside a longer encoded text).
func valueForms(v string) []string {
	var out []string
	for _, x := range []string{v, reverseText(v)} {
		h := hex.EncodeToString([]byte(x))
		out = append(out, x, h, strings.ToUpper(h))
		for off := range 3 {
			b := base64Aligned(x, off)
			out = append(out, b)
			if u := base64URL.Replace(b); u != b {
				out = append(out, u)
			}
		}
	}
	return out
}

// base64URL turns standard base64 into the URL alphabet.
var base64URL = strings.NewReplacer("+", "-", "/", "_")

// base64Aligned is the part of x's base64 encoding that does not depend
// on the bytes around it when x starts off bytes into a 3-byte group.
func base64Aligned(x string, off int) string {
	enc := base64.StdEncoding.EncodeToString(append(make([]byte, off), x...))
	enc = strings.TrimRight(enc, "=")
	enc = enc[[]int{0, 2, 3}[off]:]
	if r := (off + len(x)) % 3; r != 0 && len(enc) > 0 {
		enc = enc[:len(enc)-1] // the last character mixes in the next byte
	}
	return enc
}

func reverseText(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// oracleSet holds the needles (each value's forms) in an open-addressing
// table keyed by their first 8 bytes.
type oracleSet struct {
	keys    []uint64   // 0: empty slot
	needles [][]string // needles per slot, longest first
	shift   uint
}

func newOracleSet(values []string) *oracleSet {
	distinct := make(map[string]struct{}, len(values))
	var needles []string
	for _, v := range values {
		if _, dup := distinct[v]; dup {
			continue
		}
		distinct[v] = struct{}{}
		for _, n := range valueForms(v) {
			if len(n) >= 8 {
				needles = append(needles, n)
			}
		}
	}
	size, bits := 16, uint(4)
	for size < 4*len(needles) {
		size, bits = size*2, bits+1
	}
	s := &oracleSet{keys: make([]uint64, size), needles: make([][]string, size), shift: 64 - bits}
	for _, n := range needles {
		s.add(n)
	}
	return s
}

// add files needle n under its first 8 bytes, unless it is there.
func (s *oracleSet) add(n string) {
	k := binary.LittleEndian.Uint64([]byte(n[:8]))
	if k == 0 {
		return
	}
	mask := uint64(len(s.keys) - 1)
	h := (k * hashMul) >> s.shift
	for s.keys[h] != 0 && s.keys[h] != k {
		h = (h + 1) & mask
	}
	if slices.Contains(s.needles[h], n) {
		return
	}
	s.keys[h] = k
	ns := append(s.needles[h], n)
	for i := len(ns) - 1; i > 0 && len(ns[i]) > len(ns[i-1]); i-- {
		ns[i], ns[i-1] = ns[i-1], ns[i]
	}
	s.needles[h] = ns
}

// find returns the merged spans of hay holding a needle.
func (s *oracleSet) find(hay []byte) [][2]int {
	var spans [][2]int
	mask := uint64(len(s.keys) - 1)
	for i := 0; i+8 <= len(hay); i++ {
		k := binary.LittleEndian.Uint64(hay[i:])
		h := (k * hashMul) >> s.shift
		for s.keys[h] != 0 {
			if s.keys[h] == k {
				for _, n := range s.needles[h] {
					if len(n) <= len(hay)-i && string(hay[i:i+len(n)]) == n {
						end := i + len(n)
						if l := len(spans); l > 0 && spans[l-1][1] >= i {
							spans[l-1][1] = max(spans[l-1][1], end)
						} else {
							spans = append(spans, [2]int{i, end})
						}
						break
					}
				}
				break
			}
			h = (h + 1) & mask
		}
	}
	return spans
}

// needles lists the set's needles.
func (s *oracleSet) all() []string {
	var out []string
	for _, ns := range s.needles {
		out = append(out, ns...)
	}
	return out
}
