package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

// pemKey is a PEM private key body for tests, built so this file holds no
// BEGIN line of its own.
func pemKey() string {
	var b strings.Builder
	b.WriteString("-----BEGIN RSA " + "PRIVATE KEY-----\n")
	b.WriteString("MIIEpAIBAAKCAQEA0aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5cD7eF9gH1jK\n")
	for i := 0; i < 6; i++ {
		b.WriteString("Zq0xLm4Rt8Wv2Ky6Np3S" + strings.Repeat("aB3dE5fG7hJ9kL1m", 2) + "AbCdEfGhIjKlMn" + string(rune('A'+i)) + "\n")
	}
	b.WriteString("QUJDRA==\n-----END RSA " + "PRIVATE KEY-----\n")
	return b.String()
}

// TestSecretSideDoors: every attack on a file with a secret gets nothing
// from that file: grep "." on a key (named or not), a prefix oracle on a
// token in a .txt file, search_code context around a secret.
func TestSecretSideDoors(t *testing.T) {
	dir := t.TempDir()
	token := "ghp_" + "Zq0xLm4Rt8Wv2Ky6Np3SaB3dE5fG7hJ9kL1m"
	writeFiles(t, dir, map[string]string{
		"id_rsa":          pemKey(),
		"notes.txt":       "deploy notes\n" + pemKey() + "more notes\n",
		"tail.txt":        pemKey()[strings.IndexByte(pemKey(), '\n')+1:],
		"tokens.txt":      "first line\ntoken = " + token + "\nlast line\n",
		"config/app.yaml": "db:\n  user: app\n  password: Xk9fQ2mZ8pL4wR7t\n  host: db.internal\n",
		"main.go":         "package main\n\nfunc main() {}\n",
	})
	h := newHarness(t, "research", SessionConfig{Root: dir})
	grepFiles := func(args map[string]any) (files []string, out string) {
		res := h.call("grep", args)
		var g grepResult
		json.Unmarshal([]byte(res.Output), &g)
		for _, m := range g.Results {
			files = append(files, m.FilePath)
		}
		return files, res.Output
	}
	for _, pattern := range []string{".", "MII", "ghp_Zq0x", "ghp_Zq0y", "password", "notes", "first line", "user"} {
		files, out := grepFiles(map[string]any{"pattern": pattern})
		for _, f := range files {
			if f != "main.go" {
				t.Errorf("grep %q returned %s: %s", pattern, f, out)
			}
		}
	}
	// No oracle: a prefix of the token and a string it lacks get the same answer.
	_, hit := grepFiles(map[string]any{"pattern": "ghp_Zq0x"})
	_, miss := grepFiles(map[string]any{"pattern": "ghp_Zq0y"})
	if hit != miss {
		t.Errorf("grep answers differ: %s vs %s", hit, miss)
	}
	res := h.call("search_code", map[string]any{"pattern": "notes|line|host|first", "context_lines": 5})
	for _, leak := range []string{"MII", "Zq0x", "Xk9fQ", "notes.txt", "tokens.txt", "app.yaml"} {
		if strings.Contains(res.Output, leak) {
			t.Errorf("search_code revealed %q: %s", leak, res.Output)
		}
	}
	for _, f := range []string{"id_rsa", "notes.txt", "tail.txt", "tokens.txt", "config/app.yaml"} {
		if res := h.call("read_file", map[string]any{"path": f}); !strings.Contains(res.Output, `"blocked":true`) {
			t.Errorf("read_file %s = %.200s", f, res.Output)
		}
	}
}
