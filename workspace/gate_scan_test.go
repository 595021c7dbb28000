package workspace

import (
	"fmt"
	"strings"
	"testing"
)

// TestFirstSecretLargeContent checks the parallel scan of large content:
// a secret anywhere (the last line, a chunk boundary) blocks the whole
// content, and the first secret in file order is the one named.
func TestFirstSecretLargeContent(t *testing.T) {
	token := fake("token ghp_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789")
	key := fake("AKIA", "Z7Q2MBV5XK3LWPT4")
	lines := make([]string, 100_000)
	for i := range lines {
		lines[i] = fmt.Sprintf("\tx%d := compute(%d) // ordinary line", i, i)
	}
	with := func(at map[int]string) []byte {
		l := append([]string(nil), lines...)
		for i, s := range at {
			l[i] = s
		}
		return []byte(strings.Join(l, "\n") + "\n")
	}
	tests := []struct {
		name string
		at   map[int]string
		want string
	}{
		{"clean", nil, ""},
		{"line 90000", map[int]string{89_999: token}, "GitHub token"},
		{"last line", map[int]string{99_999: token}, "GitHub token"},
		{"middle", map[int]string{50_000: key}, "AWS access key"},
		{"first in order", map[int]string{10: key, 90_000: token}, "AWS access key"},
		{"first in order, other chunk", map[int]string{60_000: token, 99_000: key}, "GitHub token"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := with(tc.at)
			if len(data) < parallelScanSize {
				t.Fatalf("content of %d bytes is under the parallel size", len(data))
			}
			if got := firstSecret(data); got != tc.want {
				t.Fatalf("firstSecret = %q, want %q", got, tc.want)
			}
			if got := scanFirst(data); got != tc.want {
				t.Fatalf("scanFirst = %q, want %q", got, tc.want)
			}
			_, blocked := DefaultGate().ContentBlocked(data)
			if blocked != (tc.want != "") {
				t.Fatalf("ContentBlocked = %v", blocked)
			}
		})
	}
}

// TestKeywordsWithinLines backs firstSecret's cut at line ends.
func TestKeywordsWithinLines(t *testing.T) {
	if c := secretRules().kw.class['\n']; c != 0 {
		t.Fatalf("a secret keyword contains a newline (class %d): chunks cannot be cut at line ends", c)
	}
}

// sequentialHits is the reference for keywordAutomaton.hits: one pass.
func sequentialHits(a *keywordAutomaton, data []byte) []kwHit {
	var out []kwHit
	s := 0
	for i, c := range data {
		t := a.next[s<<a.shift|int(a.class[c])]
		s = int(t &^ acceptBit)
		if t&acceptBit != 0 {
			out = append(out, kwHit{i, t &^ acceptBit})
		}
	}
	return out
}

// FuzzKeywordHits checks the interleaved lanes against one pass.
func FuzzKeywordHits(f *testing.F) {
	f.Add([]byte("password = x\ntoken ghp_abc\n"), 3)
	f.Add([]byte("AKIA\nakia"), 2000)
	f.Fuzz(func(t *testing.T, line []byte, repeat int) {
		repeat = max(1, min(repeat, 3000))
		data := []byte(strings.Repeat(string(line)+"\n", repeat))
		a := secretRules().kw
		got, want := a.hits(nil, data), sequentialHits(a, data)
		if len(got) != len(want) {
			t.Fatalf("%d hits, want %d", len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("hit %d: %v, want %v", i, got[i], want[i])
			}
		}
	})
}
