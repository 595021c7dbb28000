package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/scripted"
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
			script, err := scripted.Parse([]byte("-- 01.json --\n{\"tool_calls\": [{\"name\": \"read_file\", \"args\": {\"path\": \"a.go\", \"reason\": \"look at a.go\"}}]}\n-- 02.json --\n{\"expect\": {\"lastToolResultContains\": \"package a\"}, " + strings.TrimPrefix(last, "{") + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			url, _ := scripted.Start(t, script)
			var out, errb bytes.Buffer
			code := runMain(context.Background(), stdio{in: strings.NewReader(""), out: &out, err: &errb},
				[]string{"agent", "--root", dir, "--role", role, "--base-url", url, "--model", "scripted", "--mode", "yolo", "explain a.go"})
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
			}
			var res map[string]any
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatalf("output %q: %v", out.String(), err)
			}
			want := "terminal"
			if call == "" {
				want = "text"
			}
			if res["outcome"] != want {
				t.Errorf("outcome = %v, want %s (%s)", res["outcome"], want, out.String())
			}
			if !strings.Contains(errb.String(), "• read_file: look at a.go") {
				t.Errorf("activity not printed: %q", errb.String())
			}
		})
	}
}
