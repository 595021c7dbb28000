package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpdatesHaveNoSecret: a tool call's arguments and reason and its
// result, as an ACP client is shown them (live or replayed from records
// stored unfiltered), carry no secret value of the session's folder.
func TestUpdatesHaveNoSecret(t *testing.T) {
	const secret = "Xk9fQ2mZ8pL4wR7tVb3n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("API_SECRET="+secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newCallTracker(testCatalog(t))
	args, _ := json.Marshal(map[string]string{"path": "notes.md", "content": "key: " + secret})
	start := c.toolCall("write_file", "call_1", "store "+secret, args, dir)
	done := c.toolResult("write_file", "call_1", `{"echo": "`+secret+`"}`, false)
	b, _ := json.Marshal(append([]any{start}, func() []any {
		var out []any
		for _, u := range done {
			out = append(out, u)
		}
		return out
	}()...))
	if strings.Contains(string(b), secret) {
		t.Errorf("an ACP update carries the secret: %s", b)
	}
	if !strings.Contains(string(b), "[blocked]") {
		t.Errorf("nothing was masked: %s", b)
	}
}
