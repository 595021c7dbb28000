package tools

import (
	"slices"
	"testing"
)

// TestMatchPage: a page cut from each file's matches is the same slice of
// the flat list of all matches, across files, at every skip and size.
func TestMatchPage(t *testing.T) {
	found := []fileMatches{
		{path: "a.go", lines: []int{3, 9}},
		{path: "b.go", lines: []int{1}},
		{path: "c.go", lines: []int{2, 4, 8}},
	}
	var flat []GrepMatch
	for _, f := range found {
		for _, l := range f.lines {
			flat = append(flat, GrepMatch{FilePath: f.path, LineNumber: l})
		}
	}
	if got := countMatches(found); got != len(flat) {
		t.Fatalf("countMatches = %d, want %d", got, len(flat))
	}
	for skip := 0; skip <= len(flat)+1; skip++ {
		for n := 0; n <= len(flat)+1; n++ {
			want := flat[min(skip, len(flat)):min(skip+n, len(flat))]
			if got := matchPage(found, skip, n); !slices.Equal(got, want) {
				t.Errorf("matchPage(skip %d, n %d) = %v, want %v", skip, n, got, want)
			}
		}
	}
}
