package workspace

import (
	"slices"
	"strings"
	"testing"
)

// TestHotFirstKeepsHits: the automaton with its states renumbered breadth
// first finds the same keyword ends, each accepting the same rules, as
// numbered as the keywords were added; and the states most text visits
// (the root and the keywords' first bytes) come first.
func TestHotFirstKeepsHits(t *testing.T) {
	var keywords []string
	var rules [][]uint16
	for i, k := range []string{"password", "passwd", "token", "s.", "ey", "sk", "key-", "secret", "sk-", "ssh-rsa", "xox", "akia"} {
		keywords, rules = append(keywords, k), append(rules, []uint16{uint16(i)})
	}
	trie := buildKeywordAutomaton(keywords, rules)
	hot := trie.hotFirst()
	text := []byte("x := os.Open(passwdToken)\nkey-sk-SECRET s.ey sk xoxAKIA passpassword\n" + strings.Repeat("tok", 5) + "en ssh-rs ssh-rsa")
	got, want := hot.hits(nil, text), trie.hits(nil, text)
	if len(got) != len(want) {
		t.Fatalf("%d keyword ends, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := slices.Clone(hot.accept[got[i].state]), slices.Clone(trie.accept[want[i].state])
		slices.Sort(g)
		slices.Sort(w)
		if got[i].pos != want[i].pos || !slices.Equal(g, w) {
			t.Errorf("hit %d: at %d rules %v, want at %d rules %v", i, got[i].pos, g, want[i].pos, w)
		}
	}
	// Every state one byte from the root comes before every deeper one.
	width := 1 << hot.shift
	first := 0
	for c := range width {
		first = max(first, int(hot.next[c]&^acceptBit))
	}
	for c := range width {
		for _, s := range []int{int(hot.next[c] &^ acceptBit)} {
			for c2 := range width {
				if d := int(hot.next[s<<hot.shift|c2] &^ acceptBit); d != 0 && d < s && d > first {
					t.Errorf("state %d (depth 2) is numbered before a depth-1 state", d)
				}
			}
		}
	}
	if first >= len(keywords)*2 {
		t.Errorf("the states of the first bytes go up to %d, want them first", first)
	}
}
