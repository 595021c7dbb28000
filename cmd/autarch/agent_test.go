package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestAgentVerbEveryRole runs one turn of each role against the scripted
// model from the command line, ending with the role's terminal tool.
func TestAgentVerbEveryRole(t *testing.T) {
	terminal := map[string]string{
		"discussion": "",
		"scoping":    `{"name": "submit_scope", "args": {"title": "T", "description": "D", "in_scope": ["x"], "out_of_scope": [], "recommended_path": "quick", "reason": "ready"}}`,
		"research":   `{"name": "submit_research", "args": {"summary": "S", "keyFiles": [{"path": "a.go", "purpose": "p"}], "recommendations": ["r"], "reason": "ready"}}`,
		"plan":       `{"name": "submit_plan", "args": {"approachSummary": "A", "pulses": [{"id": "p1", "title": "T", "description": "D", "expectedChanges": ["a.go"], "estimatedSize": "small"}], "reason": "ready"}}`,
		"preflight":  `{"name": "complete_preflight", "args": {"summary": "S", "setupCommands": [], "buildSuccess": true, "baselinesRecorded": 0, "reason": "ready"}}`,
		"pulsing":    `{"name": "complete_pulse", "args": {"summary": "chore: nothing", "filesChanged": [], "reason": "ready"}}`,
		"review":     `{"name": "complete_review", "args": {"recommendation": "approve", "summary": "fine", "reason": "ready"}}`,
	}
	for role, call := range terminal {
		t.Run(role, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644)
			last := `{"text": "a.go is a package."}`
			if call != "" {
				last = `{"tool_calls": [` + call + `]}`
			}
			url, _ := testkit.StartScript(t, "-- 01.json --\n{\"tool_calls\": [{\"name\": \"read_file\", \"args\": {\"path\": \"a.go\", \"reason\": \"look at a.go\"}}]}\n-- 02.json --\n{\"expect\": {\"lastToolResultContains\": \"package a\"}, "+strings.TrimPrefix(last, "{")+"\n")
			code, out, errb := run(t, "agent", "--root", dir, "--role", role, "--base-url", url, "--model", "scripted", "--mode", "yolo", "explain a.go")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errb)
			}
			var res map[string]any
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("output %q: %v", out, err)
			}
			want := "terminal"
			if call == "" {
				want = "text"
			}
			if res["outcome"] != want {
				t.Errorf("outcome = %v, want %s (%s)", res["outcome"], want, out)
			}
			if !strings.Contains(errb, "• read_file: look at a.go") {
				t.Errorf("activity not printed: %q", errb)
			}
		})
	}
}
