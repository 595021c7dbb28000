package unidiff

import (
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

func TestParsePatch(t *testing.T) {
	tests := []struct {
		name  string
		patch string
		want  []string // per file: old→new [created|deleted|renamed] lines
		err   string
	}{
		{"git form", "diff --git a/x.go b/x.go\nindex 1..2 100644\n--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n", []string{"x.go→x.go 2"}, ""},
		{"traditional form", "--- a/x.go\n+++ b/x.go\n@@ -1 +1,2 @@\n a\n+b\n", []string{"x.go→x.go 1"}, ""},
		{"traditional without prefixes", "--- x.go\n+++ x.go\n@@ -1 +1 @@\n-a\n+b\n", []string{"x.go→x.go 2"}, ""},
		{"a directory named a", "diff --git a/a/x b/a/x\n--- a/a/x\n+++ b/a/x\n@@ -1 +1 @@\n-a\n+b\n", []string{"a/x→a/x 2"}, ""},
		{"mixed forms", "diff --git a/p b/p\n--- a/p\n+++ b/p\n@@ -1 +1 @@\n-a\n+b\n--- a/q\n+++ b/q\n@@ -1 +1 @@\n-a\n+b\n", []string{"p→p 2", "q→q 2"}, ""},
		{"created and deleted", "--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+n\n--- a/d\n+++ /dev/null\n@@ -1 +0,0 @@\n-d\n", []string{"→n created 1", "d→ deleted 1"}, ""},
		{"rename", "diff --git a/o b/n\nsimilarity index 100%\nrename from o\nrename to n\n", []string{"o→n renamed 0"}, ""},
		{"header-less hunks", "@@ -1 +1 @@\n-a\n+b\n", []string{"→ 2"}, ""},
		{"prose before a header-less hunk", "Here is the fix:\n@@ -1 +1 @@\n-a\n+b\n", []string{"→ 2"}, ""},
		{"empty context line (space stripped)", "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n\n-c\n+C\n", []string{"x→x 2"}, ""},
		{"no trailing newline", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b", []string{"x→x 2"}, ""},
		{"empty", "", nil, "empty"},
		{"prose", "fix the bug please\n", nil, "no hunks found"},
		{"bad header", "--- a/x\n+++ b/x\n@@ -x +1 @@\n-a\n", nil, "invalid fragment header"},
		{"miscount", "@@ -1,3 +1,3 @@\n a\n", nil, "line 1: fragment header miscounts lines"},
		{"no change", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n a\n", nil, "no changes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := ParsePatch(tt.patch)
			if testkit.WantErr(t, err, tt.err) {
				return
			}
			var got []string
			for _, f := range files {
				s := f.OldPath + "→" + f.NewPath
				for flag, on := range map[string]bool{"created": f.Created, "deleted": f.Deleted, "renamed": f.Renamed} {
					if on {
						s += " " + flag
					}
				}
				got = append(got, s+" "+string(rune('0'+f.LinesChanged())))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("files = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestApply(t *testing.T) {
	files, err := ParsePatch("--- a/x\n+++ b/x\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Apply("z\na\nb\nc\n", files[0].Edits); err != nil || got != "z\na\nb\nC\n" {
		t.Errorf("moved hunk: %q, %v", got, err)
	}
	if got, err := Apply("a\nb\nX\n", files[0].Edits); err == nil || got != "" {
		t.Errorf("mismatch: %q, %v", got, err)
	}
}
