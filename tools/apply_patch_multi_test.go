package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPulsingApplyPatchSeveralFiles (001-9, 001-10): pulsing has
// apply_patch, described between edit_file and write_file; without a
// path it applies a patch of several files (creating one), all or
// nothing, each existing file read first.
func TestPulsingApplyPatchSeveralFiles(t *testing.T) {
	reg, err := ForRole("pulsing", Deps{})
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Join(reg.Names(), " ")
	if !strings.Contains(names, "apply_patch") {
		t.Fatalf("pulsing has no apply_patch: %s", names)
	}
	if ap, _ := reg.Get("apply_patch"); !strings.Contains(ap.Description(), "Prefer edit_file or multi_edit for a single change; use apply_patch for several changes in one or more files or an existing diff; write_file for new files") {
		t.Errorf("apply_patch does not state the edit_file → apply_patch → write_file order: %s", ap.Description())
	}
	const patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-bee\n+BEE\n--- /dev/null\n+++ b/new/c.txt\n@@ -0,0 +1 @@\n+sea\n"
	tests := []struct {
		name   string
		read   []string
		files  map[string]string
		failed string
		want   map[string]string
	}{
		{"applies every file", []string{"a.txt", "b.txt"}, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "bee\n"}, "",
			map[string]string{"a.txt": "one\nTWO\n", "b.txt": "BEE\n", "new/c.txt": "sea\n"}},
		{"a file not read", []string{"a.txt"}, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "bee\n"}, "You must read b.txt",
			map[string]string{"a.txt": "one\ntwo\n", "b.txt": "bee\n"}},
		{"a hunk that does not apply", []string{"a.txt", "b.txt"}, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "wasp\n"}, "b.txt",
			map[string]string{"a.txt": "one\ntwo\n", "b.txt": "wasp\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			h := newHarness(t, "pulsing", SessionConfig{Root: dir})
			for _, f := range tt.read {
				h.call("read_file", map[string]any{"path": f})
			}
			res := h.call("apply_patch", map[string]any{"patch": patch})
			if res.Failed != (tt.failed != "") || !strings.Contains(res.Output, tt.failed) {
				t.Errorf("result %s (failed=%v)", res.Output, res.Failed)
			}
			for rel, want := range tt.want {
				if got, _ := os.ReadFile(filepath.Join(dir, rel)); string(got) != want {
					t.Errorf("%s = %q, want %q", rel, got, want)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "new/c.txt")); (err == nil) != (tt.failed == "") {
				t.Errorf("new/c.txt exists: %v", err == nil)
			}
		})
	}
}
