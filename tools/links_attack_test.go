package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadThroughLinkToBlockedFile (redteam s10, hole 01): a file the gate
// blocks by its path (.env, *.tfstate…) must not be shown under another
// name. The agent's own command makes the other name:
//
//   - a symbolic link (ln -s terraform.tfstate notes.txt): in the sandbox it
//     leads to the mask, but read_file on the host follows it through the
//     confined root and gates the link's name, not the target's;
//   - a hard link made before the blocked file exists (echo > notes.txt;
//     ln notes.txt terraform.tfstate), into which the user (or terraform)
//     later writes in place: read_file and grep show it under notes.txt.
//
// What the content rules and the egress harvest miss is then shown: a
// tfstate's values sit under keys that are not secret-like, and a blocked
// file written after the session started was never harvested.
func TestReadThroughLinkToBlockedFile(t *testing.T) {
	const secret = "zzTfstatePass1"
	state := `{"outputs":{"db":{"value":"` + secret + `"}}}` + "\n"
	for _, tc := range []struct {
		name    string
		before  string // the blocked file, written before the session starts
		command string // the agent's command
		after   string // the blocked file, written (in place) after it
		read    string // the name read
	}{
		{"symlink", "infra/terraform.tfstate", "ln -s ../infra/terraform.tfstate docs/notes.txt", "", "docs/notes.txt"},
		{"symlinked folder", "infra/terraform.tfstate", "ln -s infra docs2", "", "docs2/terraform.tfstate"},
		{"hard link, written later", "", "echo x > docs/notes.txt && ln docs/notes.txt infra/terraform.tfstate", "infra/terraform.tfstate", "docs/notes.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAttackWorkspace(t)
			writeFiles(t, a.ws, map[string]string{"docs/readme.md": "docs\n", "infra/main.tf": "terraform {}\n"})
			content := state
			if tc.before != "" {
				writeFiles(t, a.ws, map[string]string{tc.before: content})
			}
			h := newHarness(t, "pulsing", SessionConfig{Root: a.ws})
			if res := h.call("shell", map[string]any{"command": tc.command}); !strings.Contains(res.Output, `"exit_code":0`) {
				t.Fatalf("the attack's command failed: %s", res.Output)
			}
			if tc.after != "" {
				f, err := os.OpenFile(filepath.Join(a.ws, tc.after), os.O_WRONLY|os.O_TRUNC, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.WriteString(content); err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
			if res := h.call("read_file", map[string]any{"path": tc.read, "reason": "attack"}); strings.Contains(res.Output, secret) {
				t.Errorf("read_file %s showed the blocked file's content: %s", tc.read, res.Output)
			}
			if res := h.call("grep", map[string]any{"pattern": secret, "reason": "attack"}); strings.Contains(res.Output, secret) {
				t.Errorf("grep showed the blocked file's content: %s", res.Output)
			}
		})
	}
}
