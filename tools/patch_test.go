package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

const patchBase = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"

func TestApplyHunks(t *testing.T) {
	tests := []struct {
		name, patch, want, err string
	}{
		{"two hunks", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n@@ -8,3 +8,4 @@\n eight\n nine\n+nine and a half\n ten\n",
			"one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nnine\nnine and a half\nten\n", ""},
		{"moved position", "@@ -5,2 +5,2 @@\n-seven\n+SEVEN\n eight\n", "one\ntwo\nthree\nfour\nfive\nsix\nSEVEN\neight\nnine\nten\n", ""},
		{"pure insertion", "@@ -2,0 +3,1 @@\n+two and a half\n", "one\ntwo\ntwo and a half\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n", ""},
		{"no newline at end", "@@ -10,1 +10,1 @@\n-ten\n+TEN\n\\ No newline at end of file\n", "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nTEN", ""},
		{"no newline at end of the old side (git's form)", "@@ -9,2 +9,2 @@\n nine\n-ten\n\\ No newline at end of file\n+TEN\n",
			"one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nTEN\n", ""},
		{"context mismatch", "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n free\n", "", "hunk 1 (@@ -1,3 +1,3 @@) does not apply"},
		{"second hunk fails", "@@ -1,1 +1,1 @@\n-one\n+ONE\n@@ -9,1 +9,1 @@\n-zero\n+ZERO\n", "", "hunk 2"},
		{"bad header", "@@ -x +1 @@\n-one\n", "", "line 1: invalid fragment header"},
		{"short hunk", "@@ -1,3 +1,3 @@\n one\n", "", "line 1: fragment header miscounts lines"},
		{"no hunks", "just text\n", "", "no hunks found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := parsePatch(tt.patch)
			var got string
			if err == nil {
				got, err = applyHunks(patchBase, files[0].hunks)
			}
			if testkit.WantErr(t, err, tt.err) {
				return
			}
			if got != tt.want {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestPatchDeleteFindSearchTools(t *testing.T) {
	dir := fixture(t)
	writeFiles(t, dir, map[string]string{"f.txt": patchBase, "deploy/app.yaml": "a: 1\n", "deploy/db.yaml": "b: 2\n"})
	h := newHarness(t, "pulsing", SessionConfig{Root: dir})
	all, _ := All(Deps{})
	h.e = NewEngine(all, nil, h.e.log)
	if res := h.call("apply_patch", map[string]any{"path": "f.txt", "patch": "@@ -1 +1 @@\n-one\n+ONE\n"}); !strings.Contains(res.Output, "must read f.txt") {
		t.Errorf("patch before read = %s", res.Output)
	}
	h.call("read_file", map[string]any{"path": "f.txt"})
	if res := h.call("apply_patch", map[string]any{"path": "f.txt", "patch": "@@ -1 +1 @@\n-one\n+ONE\n@@ -4 +4 @@\n-nope\n+x\n"}); !strings.Contains(res.Output, "hunk 2 (@@ -4,1 +4,1 @@) does not apply") {
		t.Errorf("failing hunk = %s", res.Output)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(b) != patchBase {
		t.Errorf("failed patch changed the file: %q", b)
	}
	if res := h.call("apply_patch", map[string]any{"path": "f.txt", "patch": "@@ -1 +1 @@\n-one\n+ONE\n"}); res.Output != `{"hunks_applied":1,"success":true}` {
		t.Errorf("patch = %s", res.Output)
	}
	if res := h.call("delete_file", map[string]any{"path": "f.txt"}); !strings.Contains(res.Output, "Error: deletion disabled.") {
		t.Errorf("delete disabled = %s", res.Output)
	}
	if res := h.call("find_files", map[string]any{"pattern": "*.yaml"}); res.Output != `["deploy/app.yaml","deploy/db.yaml"]` {
		t.Errorf("find_files = %s", res.Output)
	}
	if res := h.call("search_code", map[string]any{"pattern": `func \w+`, "file_pattern": "util.go", "context_lines": 1}); !strings.Contains(res.Output, `"context":["3\t// Add adds.","4\tfunc Add(a, b int) int { return a + b }","5\t"]`) {
		t.Errorf("search_code = %s", res.Output)
	}
	h2 := newHarness(t, "pulsing", SessionConfig{Root: dir, AllowDelete: true})
	h2.e = NewEngine(all, nil, h.e.log)
	if res := h2.call("delete_file", map[string]any{"path": "f.txt"}); res.Output != `{"path":"f.txt","success":true}` {
		t.Errorf("delete = %s", res.Output)
	}
	if res := h2.call("delete_file", map[string]any{"path": "deploy"}); !strings.Contains(res.Output, "is a directory") {
		t.Errorf("delete dir = %s", res.Output)
	}
}

// FuzzPatch: parsing and applying arbitrary patches never panics, and a
// failed apply returns nothing.
func FuzzPatch(f *testing.F) {
	f.Add(patchBase, "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n")
	f.Add("a\n", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n")
	f.Add("", "@@ -0,0 +1,2 @@\n+x\n+y\n")
	f.Add("x", "@@ -99999999999999999999 +1 @@\n")
	f.Fuzz(func(t *testing.T, content, patch string) {
		files, err := parsePatch(patch)
		if err != nil {
			return
		}
		for _, fp := range files {
			got, err := applyHunks(content, fp.hunks)
			if err != nil && got != "" {
				t.Fatalf("failed apply returned %q", got)
			}
		}
	})
}
