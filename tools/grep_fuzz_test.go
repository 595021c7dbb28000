package tools

import (
	"bytes"
	"regexp"
	"slices"
	"testing"
)

// naiveLines is the reference: start offsets of lines matching re.
func naiveLines(re *regexp.Regexp, data []byte) []int {
	var out []int
	start := 0
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			break
		}
		if re.Match(bytes.TrimSuffix(line, []byte("\n"))) {
			out = append(out, start)
		}
		start += len(line)
	}
	return out
}

// FuzzMatchLines checks the fast paths (folded literal, literal prefilters)
// against a line-by-line regexp.
func FuzzMatchLines(f *testing.F) {
	f.Add("func Foo() {}\nFUNC bar\nno\n", "func", false)
	f.Add("a-b\nTODO x\nfixme\n", "(TODO|FIXME)", false)
	f.Add("2024-01-02\nx", "[0-9]{4}-[0-9]{2}", true)
	f.Add("zzz", "z", false)
	f.Fuzz(func(t *testing.T, content, pattern string, caseSensitive bool) {
		m, err := newMatcher(pattern, caseSensitive)
		if err != nil {
			return
		}
		expr := pattern
		if regexp.QuoteMeta(pattern) == pattern {
			expr = regexp.QuoteMeta(pattern)
		}
		if !caseSensitive {
			expr = "(?i)" + expr
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return
		}
		got := slices.Clone(m.matchLines(&scanner{}, []byte(content)))
		want := naiveLines(re, []byte(content))
		if pattern == "" {
			return
		}
		if !slices.Equal(got, want) {
			t.Fatalf("pattern %q on %q: got %v, want %v", pattern, content, got, want)
		}
	})
}
