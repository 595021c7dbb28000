package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestACPEndToEnd drives `autarch acp` with the official ACP TypeScript
// SDK's client (e2e/acp/run.mjs): discuss and workflow turns against the
// scripted model, then session/load after the process was killed, every
// message validated against the SDK's JSON schema. It is skipped only
// where node is missing (CI has it); the SDK comes from `npm ci`.
func TestACPEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds autarch and runs node: not in -short")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the ACP e2e needs the official SDK's client")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the ACP SDK is not installed: run `npm ci` at the repository root (make node-deps): %v", err)
	}
	bin := buildBinary(t)
	scripted := filepath.Join(t.TempDir(), "autarch-scripted")
	if out, err := exec.Command("go", "build", "-o", scripted, "../autarch-scripted").CombinedOutput(); err != nil {
		t.Fatalf("go build autarch-scripted: %v\n%s", err, out)
	}
	cmd := exec.Command(node, filepath.Join(root, "e2e", "acp", "run.mjs"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "AUTARCH_BIN="+bin, "AUTARCH_SCRIPTED_BIN="+scripted)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("e2e/acp/run.mjs: %v", err)
	}
}
