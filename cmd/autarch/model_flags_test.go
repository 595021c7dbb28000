package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestAgentVerbModelFlags checks that the model flags autarch agent shares
// with the workflow verbs (modelFlags) reach its agent: the prices, the
// iteration cap and the budget.
func TestAgentVerbModelFlags(t *testing.T) {
	// Model calls of 1000 prompt and 100 completion tokens each: a
	// read_file, then (when the agent gets that far) a text answer.
	read := "-- 01.json --\n{\"usage\": {\"prompt_tokens\": 1000, \"completion_tokens\": 100}, \"tool_calls\": [{\"name\": \"read_file\", \"args\": {\"path\": \"a.go\", \"reason\": \"look\"}}]}\n"
	answer := "-- 02.json --\n{\"usage\": {\"prompt_tokens\": 1000, \"completion_tokens\": 100}, \"text\": \"a.go is a package.\"}\n"
	for _, tc := range []struct {
		name    string
		script  string
		flags   []string
		code    int
		outcome string
		cost    float64
	}{
		{name: "prices", script: read + answer, flags: []string{"--price-prompt", "1", "--price-completion", "10"}, outcome: "text", cost: 2 * (1000*1 + 100*10) / 1e6},
		{name: "max iterations", script: read, flags: []string{"--max-iterations", "1"}, code: 1, outcome: "failed"},
		{name: "budget", script: read, flags: []string{"--price-prompt", "1000", "--budget", "0.5"}, code: 1, outcome: "budget"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644)
			url, _ := testkit.StartScript(t, tc.script)
			args := append([]string{"agent", "--root", dir, "--base-url", url, "--model", "scripted", "--mode", "yolo", "--stream=false"}, tc.flags...)
			code, out, errb := run(t, append(args, "explain a.go")...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, out, errb)
			}
			var res struct {
				Outcome string  `json:"outcome"`
				Cost    float64 `json:"cost"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("output %q: %v", out, err)
			}
			if res.Outcome != tc.outcome {
				t.Errorf("outcome = %q, want %q (%s)", res.Outcome, tc.outcome, out)
			}
			if tc.cost != 0 && (res.Cost < tc.cost*0.999 || res.Cost > tc.cost*1.001) {
				t.Errorf("cost = %v, want %v (%s)", res.Cost, tc.cost, out)
			}
		})
	}
}
