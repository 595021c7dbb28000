package textsearch

import (
	"errors"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// TestHostilePatterns: a 1 MB pattern is refused with a clear error, and a
// pattern that defeats the DFA's cache over a 10 MB one-line file ends
// (incomplete, and saying so) instead of running for minutes. The times
// are logged, not asserted.
func TestHostilePatterns(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	huge := make([]byte, 1<<20)
	line := make([]byte, 10<<20) // one line
	for i := range huge {
		huge[i] = 'a' + byte(r.Intn(26))
	}
	for i := range line {
		line[i] = 'a' + byte(r.Intn(10))
	}
	for _, tc := range []struct {
		name          string
		expr          string
		caseSensitive bool
		literal       bool
	}{
		{"1 MB literal, case-folded", string(huge), false, true},
		{"1 MB regex", string(huge) + ".*", true, false},
		{"just over the limit", strings.Repeat("x", MaxPatternBytes+1), true, true},
	} {
		start := time.Now()
		_, err := Compile(tc.expr, tc.caseSensitive, tc.literal)
		t.Logf("%s: refused in %v", tc.name, time.Since(start))
		if !errors.Is(err, ErrPatternTooLong) || !strings.Contains(err.Error(), "shorter") {
			t.Errorf("%s: Compile = %v, want ErrPatternTooLong saying what to do", tc.name, err)
		}
	}
	if _, err := Compile(strings.Repeat("x", MaxPatternBytes), false, true); err != nil {
		t.Errorf("a pattern of exactly MaxPatternBytes: %v", err)
	}
	for _, tc := range []struct{ name, expr string }{
		{"a new DFA state per byte, 800 wide", `a[a-j]{800}$`},
		{"a new DFA state per byte, 15 wide", `a[a-j]{15}$`},
		// The window ("bj") and the run around it occur, and no match does
		// (the run check before the DFA finds no 'k' of the earlier
		// `(?i)a[a-j]{800}k` in this line, so that search ends complete):
		// the DFA must still give up.
		{"the same, case-folded, with a window", `(?i)bj[a-j]{800}k`},
	} {
		p, err := Compile(tc.expr, true, false)
		if err != nil {
			t.Fatal(err)
		}
		s := p.NewSearcher()
		start := time.Now()
		got := s.MatchLines(nil, line)
		t.Logf("%s over a 10 MB line: %v (exhausted %v)", tc.name, time.Since(start), s.Exhausted())
		if len(got) != 0 || !s.Exhausted() {
			t.Errorf("%s: matches %v, exhausted %v; want none, exhausted", tc.name, got, s.Exhausted())
		}
	}
	// An ordinary regex over ordinary text never exhausts the budget.
	p, err := Compile(`func \w+\(`, false, false)
	if err != nil {
		t.Fatal(err)
	}
	s := p.NewSearcher()
	if got := s.MatchLines(nil, []byte(strings.Repeat(sample+"\n", 20000))); len(got) == 0 || s.Exhausted() {
		t.Errorf("ordinary search: %d matches, exhausted %v", len(got), s.Exhausted())
	}
}
