package workspace

import (
	"bytes"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// kwSteppers are the lanes' steppers a test checks: the portable one and
// the one lanesHits uses (the assembly on amd64).
var kwSteppers = []struct {
	name  string
	steps kwStepper
}{{"portable", kwStepsGo}, {"fast", kwStepsFast}}

// checkLanes checks lanesHitsWith, with each stepper, against one pass of
// the automaton's transitions (sequentialHits): the same keyword ends, in
// order, with the same states.
func checkLanes(t *testing.T, a *keywordAutomaton, data []byte) {
	t.Helper()
	want := sequentialHits(a, data)
	for _, s := range kwSteppers {
		var found [lanes][]kwHit
		got := a.lanesHitsWith(nil, data, &found, s.steps)
		if !slices.Equal(got, want) {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Fatalf("%s lanes over %d bytes: %d hits, want %d; first difference at hit %d: got %v, want %v",
				s.name, len(data), len(got), len(want), i, got[i:min(i+3, len(got))], want[i:min(i+3, len(want))])
		}
	}
}

// FuzzKeywordLanes checks the lanes (cut anywhere, each but the first
// starting maxLen bytes early) against one pass, on any text: keywords
// across the lanes' cuts and the chunks' ends, texts just over and under
// the lanes' least size, hits in the last bytes.
func FuzzKeywordLanes(f *testing.F) {
	a := secretRules().kw
	f.Add([]byte("password = x\ntoken ghp_abc\n"), uint16(0), uint16(700))
	f.Add([]byte("s.sk-eyJ xoxb hf_ AKIA"), uint16(3), uint16(6000))
	f.Add([]byte("-----BEGIN RSA PRIVATE KEY-----"), uint16(1), uint16(12000))
	f.Fuzz(func(t *testing.T, piece []byte, seed, size uint16) {
		if len(piece) == 0 {
			piece = []byte("sk")
		}
		r := rand.New(rand.NewSource(int64(seed)))
		data := make([]byte, 0, int(size)+len(piece))
		for len(data) < int(size) {
			if r.Intn(4) == 0 {
				data = append(data, piece...)
			} else {
				data = append(data, "abcdefghijklmnopqrstuvwxyz .-_:/SK\n\u212a"[r.Intn(38)])
			}
		}
		checkLanes(t, a, data)
	})
}

// TestKeywordLanesOnGoSource checks the lanes against one pass over real
// Go source, whole and cut at every size around the lanes' and chunks'
// bounds.
func TestKeywordLanesOnGoSource(t *testing.T) {
	data := goSourceSample(t, 2<<20)
	if len(data) == 0 {
		t.Skip("no Go sources under GOROOT")
	}
	a := secretRules().kw
	checkLanes(t, a, data)
	least := a.lanesMin()
	for _, n := range []int{0, 1, 2, least - 1, least, least + 1, least + 7, 5 * kwChunk, 5*kwChunk + 4*a.maxLen + 3, 10*kwChunk + 1} {
		checkLanes(t, a, data[:n])
		checkLanes(t, a, data[len(data)-n:])
	}
}

// TestKeywordLanesEveryCut puts a keyword at every position of a text
// the lanes cut, so that each lane's start, warm-up and end meets one.
func TestKeywordLanesEveryCut(t *testing.T) {
	a := secretRules().kw
	filler := bytes.Repeat([]byte("x"), 2000)
	longest := ""
	for _, r := range append(slices.Clone(localRules), gitleaksRules...) {
		for _, k := range r.keywords {
			if len(k) > len(longest) {
				longest = k
			}
		}
	}
	if len(longest) != a.maxLen {
		t.Fatalf("the longest keyword %q has %d bytes, the automaton's maxLen is %d", longest, len(longest), a.maxLen)
	}
	for _, kw := range []string{"s.", "SK", "github_pat_", "-----BEGIN", "b3BlbnNzaC1rZXktdjE", longest} {
		for at := 0; at+len(kw) <= len(filler); at++ {
			data := slices.Clone(filler)
			copy(data[at:], kw)
			checkLanes(t, a, data)
		}
	}
	// Every byte a hit: each lane's records fill up within a chunk.
	checkLanes(t, a, []byte(strings.Repeat("s.", 3*kwChunk)))
}

// TestKeywordTableFits checks that the gate's keywords fit the lanes'
// 16-bit table (were they too many, hits would come from one slow pass:
// this test says so before a user's search does).
func TestKeywordTableFits(t *testing.T) {
	a := secretRules().kw
	if !a.lanes {
		t.Fatalf("the gate's %d automaton states do not fit the lanes' table (%d classes)", len(a.accept), 1<<a.shift)
	}
	if got := a.rowState[0]; got != 0 {
		t.Fatalf("row 0 is state %d, want the root", got)
	}
}

// TestKeywordTableTooManyStates builds automata on both sides of the
// table's bound (2048 non-accepting rows with 64 classes): long random
// keywords, then the hits of each against one pass.
func TestKeywordTableTooManyStates(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789_-.:/ ABCDEFGHIJKLMNOPQRSTU"
	for _, n := range []int{40, 200} {
		var keywords []string
		var rules [][]uint16
		for i := range n {
			b := make([]byte, 30)
			for j := range b {
				b[j] = letters[r.Intn(38)]
			}
			keywords, rules = append(keywords, string(b)), append(rules, []uint16{uint16(i)})
		}
		a := newKeywordAutomaton(keywords, rules)
		if fits := n*29 < 2048; a.lanes != fits {
			t.Fatalf("%d keywords, %d states: lanes %v, want %v", n, len(a.accept), a.lanes, fits)
		}
		var data []byte
		for len(data) < 64<<10 {
			if r.Intn(8) == 0 {
				data = append(data, keywords[r.Intn(n)][:10+r.Intn(21)]...)
			} else {
				data = append(data, letters[r.Intn(len(letters))])
			}
		}
		checkLanes(t, a, data)
	}
}
