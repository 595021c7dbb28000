package textsearch

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRunsJoinEnds: a concatenation joins a repeated part's last bytes,
// the fixed parts after it and the next part's first bytes into one run,
// so [A-Z][a-z]+[0-9]{3,} is scanned for three digits in a row (not two)
// and a candidate needs a letter before them.
func TestRunsJoinEnds(t *testing.T) {
	for _, tc := range []struct {
		expr string
		run  []string // the run's positions: bytes each accepts, bytes it refuses
	}{
		{`[A-Z][a-z]+[0-9]{3,}`, []string{"az|AZ09", "09|a", "09|a", "09|a"}},
		{`x+(ab|cb)y`, []string{"x|a", "ac|x", "b|a", "y|b"}},
		{`(ab|xcb)+-`, []string{"ac|bx", "b|a", "-|b"}},
	} {
		p, err := Compile(tc.expr, true, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.runs) != 1 {
			t.Fatalf("%q: %d runs, want 1", tc.expr, len(p.runs))
		}
		seq := p.runs[0].seq
		if len(seq) != len(tc.run) {
			t.Fatalf("%q: run of %d bytes, want %d", tc.expr, len(seq), len(tc.run))
		}
		for i, spec := range tc.run {
			yes, no, _ := strings.Cut(spec, "|")
			for _, c := range []byte(yes) {
				if !seq[i].has(c) {
					t.Errorf("%q: run byte %d refuses %q", tc.expr, i, c)
				}
			}
			for _, c := range []byte(no) {
				if seq[i].has(c) {
					t.Errorf("%q: run byte %d accepts %q", tc.expr, i, c)
				}
			}
		}
	}
}

// TestEndsMatchRegexp checks patterns whose runs cross repeated parts and
// alternations against the regexp package on random text of their bytes.
func TestEndsMatchRegexp(t *testing.T) {
	exprs := []string{
		`[A-Z][a-z]+[0-9]{3,}`, `(ab|cd)+x`, `x(ab|cde)+`, `(a+b|c)d`, `[é-ê]+z`, `k+[0-9]{3,}`,
		`(ab|c)(de|f)`, `a{2,}b`, `(a|bc)+?d`, `(xa|yb)+(cz|dz)+`, `\bab+c\b`, `^(ab)+$`, `ſ+k[0-9]{2,}`,
		`(é|e)+x{2,}`, `(abc|d)?e+f`, `[a-c]+\.[0-9]{2,4}`,
	}
	alphabet := []string{"a", "b", "c", "d", "e", "f", "x", "y", "z", "k", "K", "ſ", "é", "ê", "Z", "0", "1", "9", ".", "-", " ", "\n", "\u212a"}
	rng := rand.New(rand.NewPCG(1, 2))
	var texts []string
	for range 300 {
		var b strings.Builder
		for range rng.IntN(80) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	for _, expr := range exprs {
		for _, caseSensitive := range []bool{true, false} {
			o := newOracle(t, expr, caseSensitive)
			for _, text := range texts {
				o.check(t, []byte(text), fmt.Sprintf("caseSensitive %v", caseSensitive))
			}
		}
	}
}

// oracle is a pattern with the regexp it means, line by line.
type oracle struct {
	expr string
	p    *Pattern
	re   *regexp.Regexp
}

func newOracle(t *testing.T, expr string, caseSensitive bool) oracle {
	t.Helper()
	p, err := Compile(expr, caseSensitive, false)
	if err != nil {
		t.Fatal(err)
	}
	re, err := reference(expr, caseSensitive, false)
	if err != nil {
		t.Fatal(err)
	}
	return oracle{expr: expr, p: p, re: re}
}

// check fails the test when the pattern's lines of data differ from the
// regexp's.
func (o oracle) check(t *testing.T, data []byte, how string) {
	t.Helper()
	if got, want := o.p.NewSearcher().MatchLines(nil, data), naive(o.re, data); !slices.Equal(got, want) {
		t.Fatalf("%q (%s) on %q: got %v, want %v", o.expr, how, data, got, want)
	}
}
