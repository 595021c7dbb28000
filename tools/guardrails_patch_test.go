package tools

import (
	"strings"
	"testing"
)

// TestGuardrailCountsPatchLines: the lines-per-call limit counts a patch's
// added and removed lines as the dry run does, including lines whose text
// starts with ++ or -- (only "+++ " and "--- " are file headers).
func TestGuardrailCountsPatchLines(t *testing.T) {
	dir := fixture(t)
	writeFiles(t, dir, map[string]string{
		GuardrailsFile: `{"max_lines_changed": 2}`,
		"c.txt":        "--a\n--b\nkeep\n",
	})
	g, err := LoadGuardrails(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, "pulsing", SessionConfig{Root: dir})
	h.e.WithGuardrails(g)
	h.call("read_file", map[string]any{"path": "c.txt"})
	tests := []struct {
		name, patch, want string
	}{
		{"two lines", "--- a/c.txt\n+++ b/c.txt\n@@ -3 +3,2 @@\n keep\n+x\n", `"success":true`},
		{"added ++ lines", "--- a/c.txt\n+++ b/c.txt\n@@ -3 +3,4 @@\n keep\n+++1\n+++2\n+++3\n", "adds 3 and removes 0 lines, over the limit of 2"},
		{"removed -- lines", "--- a/c.txt\n+++ b/c.txt\n@@ -1,3 +1,2 @@\n---a\n---b\n keep\n+z\n", "adds 1 and removes 2 lines, over the limit of 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if res := h.call("apply_patch", map[string]any{"path": "c.txt", "patch": tt.patch}); !strings.Contains(res.Output, tt.want) {
				t.Errorf("apply_patch → %s, want %q", res.Output, tt.want)
			}
		})
	}
}
