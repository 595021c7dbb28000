package tools

import (
	"strings"
	"testing"
)

// FuzzApplyEdits checks multi-edit atomicity: either every edit applies
// exactly (the result equals applying them one by one) or nothing changes.
func FuzzApplyEdits(f *testing.F) {
	f.Add("func a() {}\nfunc b() {}\n", "a()", "c()", false, "b()", "d()", true)
	f.Add("x x x", "x", "y", false, "y", "z", false)
	f.Add("", "", "x", false, "a", "b", false)
	f.Fuzz(func(t *testing.T, content, o1, n1 string, all1 bool, o2, n2 string, all2 bool) {
		edits := []EditOperation{{o1, n1, all1}, {o2, n2, all2}}
		got, _, ok := applyEdits(content, edits)
		want := content
		wantOK := true
		for _, e := range edits {
			if e.OldString == "" {
				wantOK = false
				break
			}
			c := strings.Count(want, e.OldString)
			if c == 0 || c > 1 && !e.ReplaceAll {
				wantOK = false
				break
			}
			if e.ReplaceAll {
				want = strings.ReplaceAll(want, e.OldString, e.NewString)
			} else {
				want = strings.Replace(want, e.OldString, e.NewString, 1)
			}
		}
		if ok != wantOK {
			t.Fatalf("ok = %v, want %v", ok, wantOK)
		}
		if ok && got != want {
			t.Fatalf("applyEdits = %q, want %q", got, want)
		}
		if !ok && got != "" {
			t.Fatalf("failed edits returned content %q", got)
		}
		_ = findNearest(content, o1) // never panics
	})
}
