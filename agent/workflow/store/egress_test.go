package store

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/tools"
)

// TestStoredRecordsHaveNoSecret: tool calls (arguments, reason, result),
// messages (content, tool-call data) and a transaction's writes carrying
// a known secret value (as it is, reversed, inside JSON) reach the
// database file masked; nothing of the value is on disk.
func TestStoredRecordsHaveNoSecret(t *testing.T) {
	const secret = "Xk9fQ2mZ8pL4wR7tVb3n"
	rev := "n3bVt7Rw4Lp8Zm2Qf9kX"
	ctx := context.Background()
	dir := t.TempDir()
	eg := tools.NewEgress(ctx, nil, tools.EgressSources{Values: []string{secret}})
	st, err := Open(ctx, filepath.Join(dir, FileName), Options{Redact: eg})
	if err != nil {
		t.Fatal(err)
	}
	wf := Workflow{Name: "w", Task: "deploy with " + secret, Stage: "discussion"}
	if err := st.CreateWorkflow(ctx, &wf); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]string{"command": "echo " + secret + " | rev", "reason": "check " + rev})
	tc := ToolCall{WorkflowID: wf.ID, Name: "shell", Args: args, Reason: "check " + rev}
	if err := st.AddToolCall(ctx, &tc); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishToolCall(ctx, tc.ID, "printed "+rev, run.OutcomeOK); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(map[string]any{"tool_calls": []map[string]string{{"name": "grep", "args": `{"pattern":"` + secret + `"}`}}})
	if err := st.AddMessage(ctx, &Message{WorkflowID: wf.ID, Role: "assistant", Content: "The key is " + secret, Data: data}); err != nil {
		t.Fatal(err)
	}
	if err := st.Update(ctx, func(tx *Tx) error {
		return tx.AddMessage(ctx, &Message{WorkflowID: wf.ID, Role: "tool", Content: `{"output": "` + rev + `"}`})
	}); err != nil {
		t.Fatal(err)
	}
	calls, err := st.ToolCalls(ctx, wf.ID, "")
	if err != nil || len(calls) != 1 || !json.Valid(calls[0].Args) || !strings.Contains(string(calls[0].Args), "[blocked]") {
		t.Fatalf("stored call = %+v, %v: want valid JSON arguments with the secret masked", calls, err)
	}
	st.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), secret) || strings.Contains(string(b), rev) {
			t.Errorf("%s holds the secret", filepath.Base(f))
		}
	}
}
