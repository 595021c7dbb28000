package tools

import (
	"context"
	"testing"

	"github.com/autarch-dev/autarch/tools/verify"
)

// TestPassingChecksResolveFailedCommands (spec 004-58: a failure the agent
// fixed no longer blocks completion): failed commands stay on record until
// the same command succeeds, the whole project's tests pass (run_tests)
// or the quality gates pass; a narrower test run does not resolve them,
// and a failed edit stays until its file is written.
func TestPassingChecksResolveFailedCommands(t *testing.T) {
	files := map[string]string{
		"go.mod":       goMod,
		"calc.go":      "package m\n\nfunc Add(a, b int) int { return a - b }\n",
		"calc_test.go": "package m\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n\nfunc TestOther(t *testing.T) {}\n",
	}
	tests := []struct {
		name  string
		check func(h *harness)
		left  []string // tools of the failures left
	}{
		{"nothing", func(*harness) {}, []string{"shell", "shell", "edit_file"}},
		{"run_tests, whole project", func(h *harness) { h.call("run_tests", map[string]any{}) }, []string{"edit_file"}},
		{"run_tests, one test", func(h *harness) { h.call("run_tests", map[string]any{"pattern": "TestOther"}) }, []string{"shell", "shell", "edit_file"}},
		{"quality gates", func(h *harness) {
			if run := h.s.QualityGates(context.Background(), verify.Gates{Full: true}, []string{"calc.go"}); run.Failed() || len(run.Reports) == 0 {
				h.t.Fatalf("gates: %+v", run)
			}
		}, []string{"edit_file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, files)
			h := newHarness(t, "pulsing", SessionConfig{Root: dir})
			h.call("shell", map[string]any{"command": "ls missing.txt"})
			h.call("shell", map[string]any{"command": "go test ./..."})
			h.call("read_file", map[string]any{"path": "calc_test.go"})
			h.call("edit_file", map[string]any{"path": "calc_test.go", "oldString": "no such text", "newString": "x"})
			h.call("read_file", map[string]any{"path": "calc.go"})
			if res := h.call("edit_file", map[string]any{"path": "calc.go", "oldString": "a - b", "newString": "a + b"}); res.Failed {
				t.Fatal(res.Output)
			}
			tt.check(h)
			var left []string
			for _, f := range h.s.FailuresSince(0) {
				left = append(left, f.Tool)
			}
			if len(left) != len(tt.left) {
				t.Fatalf("failures left: %v, want %v", left, tt.left)
			}
			for i := range left {
				if left[i] != tt.left[i] {
					t.Fatalf("failures left: %v, want %v", left, tt.left)
				}
			}
		})
	}
}
