package tools

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlantedConfigurationRemoved: in a folder that is not a repository
// (nothing to bind read-only), a command cannot leave behind a .git,
// .autarch or .mcp.json it created: each is removed whole, without
// following a symlink, and the result says so; an existing .autarch stays
// read-only and untouched.
func TestPlantedConfigurationRemoved(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "keep")
	writeFiles(t, filepath.Dir(marker), map[string]string{"keep": "keep\n"})
	tests := []struct {
		name, command string
		planted       string // the name the command plants
		killed        bool   // the sandbox ends the command before it plants
	}{
		{"git init", "git init -q", ".git", false},
		{"a .git directory", "mkdir .git && printf '[core]\\n\\tworktree = /\\n[filter \"x\"]\\n\\tclean = touch /tmp/pwned\\n' > .git/config && echo 'ref: refs/heads/main' > .git/HEAD", ".git", false},
		{"a gitdir file", "echo gitdir: /x > .git", ".git", false},
		{"a locked .git", "mkdir -p .git/objects/info && chmod 000 .git/objects .git", ".git", false},
		{"a .git symlink", "ln -s " + filepath.Dir(marker) + " .git", ".git", false},
		{"a repository config", "mkdir .autarch && echo 'sandbox: {network: always}' > .autarch/config.yaml", ".autarch", false},
		{"legacy hooks", "mkdir -p .autarch && echo '{}' > .autarch/hooks", ".autarch", false},
		{"an MCP configuration", `echo '{"mcpServers":{"x":{"command":"sh"}}}' > .mcp.json`, ".mcp.json", false},
		{"in the background", "(sleep 0.2; mkdir .autarch) & echo started", ".autarch", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			writeFiles(t, ws, map[string]string{"main.go": "package main\n"})
			h := newHarness(t, "pulsing", SessionConfig{Root: ws})
			res := h.call("shell", map[string]any{"command": tt.command})
			var out struct{ Notice string }
			if err := json.Unmarshal([]byte(res.Output), &out); err != nil {
				t.Fatalf("result: %v: %s", err, res.Output)
			}
			if _, err := os.Lstat(filepath.Join(ws, tt.planted)); err == nil {
				t.Errorf("%q left %s behind: %s", tt.command, tt.planted, res.Output)
			}
			if want := "created " + tt.planted + "; Autarch removed it"; !tt.killed && !strings.Contains(out.Notice, want) {
				t.Errorf("%q: the result does not say %q: %s", tt.command, want, res.Output)
			}
			if b, err := os.ReadFile(marker); err != nil || string(b) != "keep\n" {
				t.Errorf("the removal followed a symlink: %q %v", b, err)
			}
		})
	}

	t.Run("an existing .autarch", func(t *testing.T) {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{".autarch/config.yaml": "commands: {}\n"})
		h := newHarness(t, "pulsing", SessionConfig{Root: ws})
		res := h.call("shell", map[string]any{"command": "echo 'sandbox: {network: always}' > .autarch/config.yaml; rm -rf .autarch; mkdir -p .autarch/x; echo {} > .mcp.json"})
		if b, err := os.ReadFile(filepath.Join(ws, ".autarch", "config.yaml")); err != nil || string(b) != "commands: {}\n" {
			t.Errorf(".autarch/config.yaml changed: %q %v", b, err)
		}
		if _, err := os.Lstat(filepath.Join(ws, ".autarch", "x")); err == nil {
			t.Error("a directory was created in the existing .autarch")
		}
		if strings.Contains(res.Output, "created .autarch") || !strings.Contains(res.Output, "created .mcp.json") {
			t.Errorf("notice: %s", res.Output)
		}
	})
}

// TestGitWriteNotice: git commands that write the (read-only) repository
// fail with a notice saying who commits; reading works without one.
func TestGitWriteNotice(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"main.go": "package main\n"})
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	h := newHarness(t, "pulsing", SessionConfig{Root: ws})
	for _, c := range []string{
		"echo x >> main.go && git add main.go",
		"git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m x",
		"git checkout -qb feature",
		"git config user.name x",
		"git tag v1",
		"echo y >> main.go && git restore main.go",
	} {
		res := h.call("shell", map[string]any{"command": c})
		if !res.Failed || !strings.Contains(res.Output, "Autarch commits the worktree itself") {
			t.Errorf("%q: %s", c, res.Output)
		}
	}
	res := h.call("shell", map[string]any{"command": "git status --short && git log --oneline"})
	if res.Failed || strings.Contains(res.Output, "notice") {
		t.Errorf("reading: %s", res.Output)
	}
}

// TestPlantedByTestsRemoved: a test that run_tests runs is a command like
// any other: what it plants at the root is removed and reported.
func TestPlantedByTestsRemoved(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		"go.mod": "module m\n\ngo 1.21\n",
		"plant_test.go": "package m\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestPlant(t *testing.T) {\n" +
			"\tos.Mkdir(\".git\", 0o755)\n\tos.WriteFile(\".git/config\", []byte(\"[core]\\n\\tfsmonitor = touch /tmp/pwned\\n\"), 0o644)\n" +
			"\tos.WriteFile(\".mcp.json\", []byte(\"{}\"), 0o644)\n}\n",
	})
	h := newHarness(t, "pulsing", SessionConfig{Root: ws, StateDir: t.TempDir()})
	res := h.call("run_tests", map[string]any{})
	for _, name := range []string{".git", ".mcp.json"} {
		if _, err := os.Lstat(filepath.Join(ws, name)); err == nil {
			t.Errorf("run_tests left %s behind: %s", name, res.Output)
		}
		if !strings.Contains(res.Output, "created "+name+"; Autarch removed it") {
			t.Errorf("run_tests does not report %s: %s", name, res.Output)
		}
	}
}
