package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteFileAppend (001-5: write_file mode "overwrite" | "append"):
// append adds content at the end of a file, creating a missing one; an
// unknown mode is refused and changes nothing.
func TestWriteFileAppend(t *testing.T) {
	tests := []struct {
		name    string
		mode    string
		before  *string
		want    string
		failed  bool
		wantOut string
	}{
		{"append to a file", "append", ptr("one\n"), "one\ntwo\n", false, `"mode":"append"`},
		{"append creates", "append", nil, "two\n", false, `"size":4`},
		{"overwrite", "overwrite", ptr("one\n"), "two\n", false, `"bytes_written":4`},
		{"default overwrites", "", ptr("one\n"), "two\n", false, `"bytes_written":4`},
		{"unknown mode", "prepend", ptr("one\n"), "one\n", true, `use \"overwrite\" (the default) or \"append\"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.before != nil {
				writeFiles(t, dir, map[string]string{"log.txt": *tt.before})
			}
			h := newHarness(t, "pulsing", SessionConfig{Root: dir})
			args := map[string]any{"path": "log.txt", "content": "two\n"}
			if tt.mode != "" {
				args["mode"] = tt.mode
			}
			res := h.call("write_file", args)
			if res.Failed != tt.failed || !strings.Contains(res.Output, tt.wantOut) {
				t.Errorf("result %s (failed=%v)", res.Output, res.Failed)
			}
			got, _ := os.ReadFile(filepath.Join(dir, "log.txt"))
			if string(got) != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
		})
	}
	h := newHarness(t, "pulsing", SessionConfig{DryRun: true})
	h.call("write_file", map[string]any{"path": "notes.txt", "content": "a\nb\n", "mode": "append"})
	if plan := h.s.DryRunSummary(); len(plan) != 1 || plan[0].Action != "would append 2 lines to notes.txt" {
		t.Errorf("dry run: %+v", plan)
	}
}

func ptr[T any](v T) *T { return &v }
