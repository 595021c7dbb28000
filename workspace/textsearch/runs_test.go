package textsearch

import (
	"strings"
	"testing"
)

// TestRunsAroundWindows: a pattern's scanner window comes with the longer
// run of bytes around it that every match holds, so that a candidate
// holding the window but not the run (Next( for Context() is no candidate
// line for the DFA.
func TestRunsAroundWindows(t *testing.T) {
	for _, tc := range []struct {
		expr string
		runs []string // each run, as the bytes it accepts in lower case
	}{
		{`(?i)func \w+Context\(`, []string{"xcontext("}},
		{`(?i)(get|set)Deadline\(`, []string{"getdeadline("}},
	} {
		p, err := Compile(tc.expr, true, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.runs) != len(tc.runs) {
			t.Fatalf("%q: %d runs, want %d", tc.expr, len(p.runs), len(tc.runs))
		}
		for i, r := range p.runs {
			if len(r.seq) != len(tc.runs[i]) {
				t.Errorf("%q: run %d is %d bytes, want %q", tc.expr, i, len(r.seq), tc.runs[i])
				continue
			}
			for j := range r.seq {
				if c := tc.runs[i][j]; !r.seq[j].has(c) {
					t.Errorf("%q: run %d byte %d does not accept %q", tc.expr, i, j, c)
				}
			}
		}
		text := []byte(strings.Repeat("x := it.Next()\n", 100) + "func withContext(\n")
		if got := p.NewSearcher().MatchLines(nil, text); len(got) > 1 {
			t.Errorf("%q: %v", tc.expr, got)
		}
	}
}
