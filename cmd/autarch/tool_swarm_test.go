package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/workspace/trust"
)

// TestToolAs: `autarch tool --as AGENT NAME JSON` runs the swarm tools
// against the project's swarm; each call is its own connection (the
// embedded server starts and stops with it) and the state persists.
func TestToolAs(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "a.py"), []byte("def main():\n    pass\n"), 0o644)
	t.Setenv("AUTARCH_NATS_URL", "")
	t.Setenv("AUTARCH_SWARM_RATE", "")
	tool := func(args ...string) (int, map[string]any, string) {
		t.Helper()
		code, out, errb := run(t, append([]string{"tool", "--root", dir}, args...)...)
		var m map[string]any
		json.Unmarshal([]byte(out), &m)
		return code, m, out + errb
	}
	if code, m, out := tool("--as", "Gemini", "ctx_put", `{"key": "Gemini.list_code_files", "value": {"ok": true, "data": ["a.py"]}}`); code != 0 || m["ok"] != true || m["version"] != 1.0 {
		t.Fatalf("ctx_put: %d %s", code, out)
	}
	if code, m, out := tool("--as", "Claude", "ctx_put", `{"key": "Gemini.list_code_files", "value": 2, "mode": "if_version", "expected_version": 9}`); code != 1 || m["error"] != "version_mismatch" || m["version"] != 1.0 {
		t.Fatalf("stale if_version: %d %s", code, out)
	}
	if code, _, out := tool("--as", "Claude", "ctx_get", `{"key": "Gemini.list_code_files"}`); code != 0 || !strings.Contains(out, `"value":{"ok":true,"data":["a.py"]},"version":1`) {
		t.Fatalf("ctx_get: %d %s", code, out)
	}
	_, m, _ := tool("--as", "Claude", "coord_enqueue", `{"kind": "scan", "payload": {"dir": "."}}`)
	id, _ := m["id"].(string)
	if code, m, out := tool("--as", "Gemini", "coord_next", `{"lease_sec": 60}`); code != 0 || m["item"].(map[string]any)["id"] != id {
		t.Fatalf("coord_next: %d %s", code, out)
	}
	if code, m, out := tool("--as", "Claude", "coord_complete", `{"id": "`+id+`"}`); code != 1 || m["error"] != "not_holder" || m["code"] != 409.0 {
		t.Fatalf("complete by another agent: %d %s", code, out)
	}
	if code, m, out := tool("--as", "Gemini", "coord_complete", `{"id": "`+id+`", "result": {"ok": true}}`); code != 0 || m["status"] != "done" {
		t.Fatalf("coord_complete: %d %s", code, out)
	}
	if code, _, out := tool("--as", "Gemini", "--swarm", "other", "coord_status", `{}`); code != 0 || !strings.Contains(out, `"counts":{"queued":0,"claimed":0,"done":0}`) {
		t.Fatalf("another swarm is empty: %d %s", code, out)
	}
	if code, _, out := tool("--as", "Gemini", "fs_read", `{"path": "../x"}`); code != 1 || !strings.Contains(out, "outside") {
		t.Fatalf("fs_read outside: %d %s", code, out)
	}
	if code, _, out := tool("--as", "Gemini", "read_file", `{"path": "a.py"}`); code != 2 || !strings.Contains(out, `unknown tool "read_file"`) {
		t.Fatalf("a non-swarm tool: %d %s", code, out)
	}
	if code, _, out := tool("--as", "Gem ini", "ctx_keys", `{}`); code != 1 || !strings.Contains(out, "agent name") {
		t.Fatalf("bad agent: %d %s", code, out)
	}
	if code, _, out := tool("--as", "Gemini", "--swarm", "a.b", "ctx_keys", `{}`); code != 1 || !strings.Contains(out, "swarm name") {
		t.Fatalf("bad swarm: %d %s", code, out)
	}
	t.Setenv("AUTARCH_SWARM_RATE", "1/1m")
	tool("--as", "Gemini", "ctx_keys", `{}`)
	want := `{"error":"rate_limited","code":429,"tool":"ctx_keys","limit":1,"remaining":0,"reset_sec":60,"scope":"Gemini"}`
	if code, _, out := tool("--as", "Gemini", "ctx_keys", `{}`); code != 1 || strings.TrimSpace(out) != want && !strings.Contains(out, `"reset_sec":59`) {
		t.Fatalf("rate limit across invocations: %d %s", code, out)
	}
	t.Setenv("AUTARCH_SWARM_RATE", "")
	os.MkdirAll(filepath.Join(dir, ".autarch"), 0o755)
	os.WriteFile(filepath.Join(dir, ".autarch", "config.yaml"), []byte("swarm:\n  tools:\n    ctx_get: {calls: 1, per_sec: 600}\n"), 0o644)
	tool("--as", "Claude", "ctx_get", `{"key": "k"}`)
	if code, m, out := tool("--as", "Claude", "ctx_get", `{"key": "k"}`); code != 1 || m["limit"] != 1.0 || m["reset_sec"].(float64) < 590 {
		t.Fatalf("the repository's rate limit: %d %s", code, out)
	}
	t.Setenv("AUTARCH_SWARM_RATE", "lots")
	if code, _, out := tool("--as", "Gemini", "ctx_keys", `{}`); code != 1 || !strings.Contains(out, "AUTARCH_SWARM_RATE") {
		t.Fatalf("bad rate: %d %s", code, out)
	}
	t.Setenv("AUTARCH_SWARM_RATE", "")
	if code, _, out := tool("--as", "Gemini", "--nats", "nats://127.0.0.1:1", "ctx_keys", `{}`); code != 1 || !strings.Contains(out, "AUTARCH_NATS_URL") {
		t.Fatalf("unreachable external NATS: %d %s", code, out)
	}
}

// TestToolAsHooks: `autarch tool --as AGENT` runs the project's hooks
// around the swarm tools when the user trusts them: a pre_tool_use hook
// blocks fs_read and fs_write under private/ (the answer names the hook
// and its message), the other calls pass, and the hooks know the agent
// and the swarm; an untrusted configuration's hooks never run.
func TestToolAsHooks(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	os.MkdirAll(filepath.Join(dir, ".autarch"), 0o755)
	os.MkdirAll(filepath.Join(dir, "private"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.py"), []byte("print(1)\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "private", "key.txt"), []byte("the key\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".autarch", "config.yaml"), []byte(`hooks:
  pre_tool_use:
    - name: no-private
      matcher: "^fs_(read|write)$"
      file_patterns: ["private/**"]
      command: "echo 'private/ is off limits' >&2; exit 2"
  post_tool_use:
    - command: 'echo "$AUTARCH_TOOL agent=$AUTARCH_AGENT swarm=$AUTARCH_SWARM file=$AUTARCH_FILE" >> "$SWARM_HOOK_LOG"'
guardrails:
  code_rules:
    - pattern: 'eval\('
      message: "no eval( here"
`), 0o644)
	log := filepath.Join(t.TempDir(), "hooks.log")
	t.Setenv("SWARM_HOOK_LOG", log)
	t.Setenv("AUTARCH_NATS_URL", "")
	t.Setenv("AUTARCH_SWARM_RATE", "")
	t.Setenv("AUTARCH_SWARM", "")
	store := filepath.Join(t.TempDir(), "trusted.json")
	t.Setenv("AUTARCH_TRUST_FILE", store)
	tool := func(args ...string) (int, string) {
		t.Helper()
		code, out, errb := run(t, append([]string{"tool", "--root", dir}, args...)...)
		return code, out + errb
	}

	// Untrusted: the hooks are reported as ignored and do not run.
	if code, out := tool("--as", "Gemini", "fs_read", `{"path": "private/key.txt"}`); code != 0 || !strings.Contains(out, "the key") || !strings.Contains(out, "not trusted") {
		t.Fatalf("untrusted fs_read: %d %s", code, out)
	}
	if _, err := os.Stat(log); !os.IsNotExist(err) {
		t.Fatalf("an untrusted hook ran: %v", err)
	}

	cfg, err := trust.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := trust.At(store).Trust(cfg); err != nil {
		t.Fatal(err)
	}
	for _, call := range [][2]string{{"fs_read", `{"path": "private/key.txt"}`}, {"fs_write", `{"path": "private/key.txt", "content": "x"}`}} {
		code, out := tool("--as", "Gemini", call[0], call[1])
		if code != 1 || !strings.Contains(out, `Blocked by hook: private/ is off limits (hook \"no-private\")`) || strings.Contains(out, "the key") {
			t.Errorf("trusted %s of private/: %d %s", call[0], code, out)
		}
	}
	if code, out := tool("--as", "Gemini", "--swarm", "s1", "fs_read", `{"path": "a.py"}`); code != 0 || !strings.Contains(out, "print(1)") {
		t.Errorf("trusted fs_read of a.py: %d %s", code, out)
	}
	if code, out := tool("--as", "Claude", "--swarm", "s1", "fs_write", `{"path": "b.py", "content": "x"}`); code != 0 || !strings.Contains(out, "queued") {
		t.Errorf("trusted fs_write of b.py: %d %s", code, out)
	}
	b, _ := os.ReadFile(log)
	if want := "fs_read agent=Gemini swarm=s1 file=a.py\nfs_write agent=Claude swarm=s1 file=b.py\n"; string(b) != want {
		t.Errorf("post_tool_use hook log:\n%s\nwant:\n%s", b, want)
	}
	// The code rules judge a proposal's content too.
	if code, out := tool("--as", "Claude", "--swarm", "s1", "fs_write", `{"path": "c.py", "content": "eval(input())\n"}`); code != 1 || !strings.Contains(out, "Guardrail: no eval( here") || strings.Contains(out, "queued") {
		t.Errorf("fs_write breaking a code rule: %d %s", code, out)
	}
}
