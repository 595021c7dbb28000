package workspace

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzFoldsToASCII checks foldsToASCII, which looks for the two
// characters' first bytes in one pass, against a search for each
// character, with the characters (and their first bytes alone) at every
// alignment of the SIMD blocks.
func FuzzFoldsToASCII(f *testing.F) {
	for _, s := range []string{"", "plain ascii", "\u212a", "\u017f", "\xe2\x84", "\xc5", "caf\u00e9 \u2026 \u2014", "x\u017f", strings.Repeat("a", 40) + "\u212a"} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, b []byte, pad uint8) {
		data := append(bytes.Repeat([]byte("a"), int(pad)%70), b...)
		want := bytes.Contains(data, []byte("\u212a")) || bytes.Contains(data, []byte("\u017f"))
		if got := foldsToASCII(data); got != want {
			t.Fatalf("foldsToASCII(%q) = %v, want %v", data, got, want)
		}
	})
}

// TestFoldLeadEveryPlace puts each character, and each first byte alone,
// at every place of texts around the SIMD block size.
func TestFoldLeadEveryPlace(t *testing.T) {
	for _, size := range []int{1, 2, 31, 32, 33, 63, 64, 65, 100} {
		for _, c := range []string{"\u212a", "\u017f", "\xe2", "\xc5", "\xe2\x84", "\u00e9"} {
			for at := 0; at+len(c) <= size; at++ {
				data := bytes.Repeat([]byte("k"), size)
				copy(data[at:], c)
				want := bytes.Contains(data, []byte("\u212a")) || bytes.Contains(data, []byte("\u017f"))
				if got := foldsToASCII(data); got != want {
					t.Fatalf("foldsToASCII(%q) = %v, want %v", data, got, want)
				}
			}
		}
	}
}
