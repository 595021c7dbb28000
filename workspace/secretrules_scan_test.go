package workspace

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// scanFinding is one line scanSecrets reports.
type scanFinding struct {
	start, end int
	name       string
}

// FuzzScanMatchesReference checks ruleSet.scan, which finds a keyword
// hit's line only when a rule admits the hit, against the scan that found
// every hit's line first (referenceScan): the same lines and rule names,
// on text with and without the K and ſ that turn the guards off.
func FuzzScanMatchesReference(f *testing.F) {
	tok := "aB3dE5fG7hJ9kL2mN4pQ6rS8"
	for _, s := range []string{
		"x := os.Open(name)\ns." + tok + "\n",
		"key := s." + tok + " // \u212a\nsecret = \"" + tok + "\"\n",
		"\u017f." + tok + "\nfoo s." + tok + "\u212a bar\n",
		fake("token = \"", tok, "\"\n\u212a\n", "SK", "0123456789abcdef0123456789abcdef", "\n"),
		"ey" + tok + "." + "ey" + tok + "." + tok + "\n",
		"password: hunter2hunter2\r\nAPI_KEY=" + tok + "\n",
		// A refused "token" hit sends its line to the rule only because
		// of the ſ, under which (?i) reads "passwords".
		"x := os.Args\ntokens pa\u017f\u017fword = \"Zx9vQ2mL7pR4tY8w\"\nkey\n",
	} {
		f.Add([]byte(s))
	}
	rs := secretRules()
	f.Fuzz(func(t *testing.T, data []byte) {
		var got, want []scanFinding
		rs.scan(data, func(s, e int, name string) bool {
			got = append(got, scanFinding{s, e, name})
			return true
		})
		rs.referenceScan(data, func(s, e int, name string) bool {
			want = append(want, scanFinding{s, e, name})
			return true
		})
		if !slices.Equal(got, want) {
			t.Fatalf("scan = %v, want %v", got, want)
		}
	})
}

// TestScanMatchesReferenceOnGoSource runs FuzzScanMatchesReference's
// check over real Go source (GOROOT's), where guarded keywords hit on
// nearly every line.
func TestScanMatchesReferenceOnGoSource(t *testing.T) {
	data := goSourceSample(t, 4<<20)
	if len(data) == 0 {
		t.Skip("no Go sources under GOROOT")
	}
	rs := secretRules()
	for _, part := range bytes.SplitAfter(data, []byte("\npackage ")) {
		var got, want []scanFinding
		rs.scan(part, func(s, e int, name string) bool { got = append(got, scanFinding{s, e, name}); return true })
		rs.referenceScan(part, func(s, e int, name string) bool { want = append(want, scanFinding{s, e, name}); return true })
		if !slices.Equal(got, want) {
			t.Fatalf("scan = %v, the reference %v, in %q…", got, want, strings.SplitN(string(part), "\n", 2)[0])
		}
	}
}

// referenceScan is ruleSet.scan as it was: every hit's line found first.
func (rs *ruleSet) referenceScan(data []byte, found func(start, end int, name string) bool) {
	a := rs.kw
	var pending []uint16
	lineStart, lineEnd := 0, -1
	flush := func() bool {
		if len(pending) == 0 {
			return true
		}
		line := bytes.TrimRight(data[lineStart:lineEnd], "\r")
		slices.Sort(pending) // our rules first, in table order
		for _, id := range pending {
			if rs.rules[id].matchLine(line) {
				return found(lineStart, lineStart+len(line), rs.rules[id].name)
			}
		}
		return true
	}
	high := -1 // whether the line has a K or ſ, once asked
	highLine := func() bool {
		if high < 0 {
			high = 0
			if foldsToASCII(data[lineStart:lineEnd]) {
				high = 1
			}
		}
		return high == 1
	}
	sc, _ := a.scratch.Get().(*kwScratch)
	if sc == nil {
		sc = &kwScratch{}
	}
	sc.hits = a.lanesHits(sc.hits[:0], data, &sc.found)
	defer func() {
		if cap(sc.hits) <= maxScratchHits {
			a.scratch.Put(sc)
		}
	}()
	for _, h := range sc.hits {
		if h.pos > lineEnd {
			if !flush() {
				return
			}
			pending = pending[:0]
			lineStart, lineEnd = lineBounds(data, h.pos)
			high = -1
		}
		for _, id := range a.accept[h.state] {
			if !rs.admits(id, data, h.pos, highLine) {
				continue
			}
			if !slices.Contains(pending, id) {
				pending = append(pending, id)
			}
		}
	}
	flush()
}
