package tools

import (
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// gitRepoT makes a real repository in dir with one commit holding files.
func gitRepoT(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	writeFiles(t, dir, files)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "one"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t",
			"GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestBlockedCommandsSeeThroughTricksInEngine: with blocked_commands
// ["^touch\\b"], every spelling of touch is refused by the engine in yolo
// mode with a message saying why, and the marker it would create is never
// created; the blocklist sees through $IFS there too.
func TestBlockedCommandsSeeThroughTricksInEngine(t *testing.T) {
	dir := t.TempDir()
	gitRepoT(t, dir, map[string]string{
		GuardrailsFile: `{"blocked_commands": ["^touch\\b"]}`,
		"main.go":      "package main\n",
	})
	g, err := LoadGuardrails(dir)
	if err != nil {
		t.Fatal(err)
	}
	touch, err := exec.LookPath("touch")
	if err != nil {
		t.Skip("no touch on PATH")
	}
	tdir := filepath.Dir(touch)
	h := newHarness(t, "pulsing", SessionConfig{Root: dir})
	h.e = NewEngine(allTools(t), nil, slog.New(slog.DiscardHandler)).WithGuardrails(g)
	attacks := []struct{ cmd, want string }{
		{tdir + "/tou[c]h marker", "Guardrail: command matches the blocked pattern ^touch"},
		{"/usr/*/touch marker", "Guardrail: command matches the blocked pattern ^touch"},
		{"t?uch marker", "Guardrail: command matches the blocked pattern ^touch"},
		{"to[u]ch marker", "Guardrail: command matches the blocked pattern ^touch"},
		{"'to''uch' marker", "Guardrail: command matches the blocked pattern ^touch"},
		{"\\touch marker", "Guardrail: command matches the blocked pattern ^touch"},
		{"command touch marker", "Guardrail: command matches the blocked pattern ^touch"},
		{"exec touch marker", "Guardrail: command matches the blocked pattern ^touch"},
		{"builtin touch marker", "Guardrail: command matches the blocked pattern ^touch"},
		{"busybox touch marker", "Guardrail: command matches the blocked pattern ^touch"},
		{"touch${IFS}marker", "Guardrail: command matches the blocked pattern ^touch"},
		{"sh -c 't?uch marker'", "Guardrail: command matches the blocked pattern ^touch"},
		{"X=touch; $X marker", "Guardrail: the command name $X is only known at run time"},
		{"su${IFS}-c${IFS}true", "Guardrail: command blocked (su: privilege escalation)"},
	}
	for _, a := range attacks {
		res := h.call("shell", map[string]any{"command": a.cmd})
		if !strings.Contains(res.Output, a.want) {
			t.Errorf("%q → %s, want %q", a.cmd, res.Output, a.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
			t.Fatalf("%q created the marker", a.cmd)
		}
	}
	if res := h.call("shell", map[string]any{"command": "echo ok"}); res.Failed || !strings.Contains(res.Output, "ok") {
		t.Errorf("a harmless command was refused: %s", res.Output)
	}
}

// TestGitObjectReadsAsk: in confirm-sensitive mode, git commands that print
// a committed file's contents from the object store are put to the user
// (here rejected, so nothing is printed); git commands about the worktree
// or names only run unasked.
func TestGitObjectReadsAsk(t *testing.T) {
	dir := t.TempDir()
	gitRepoT(t, dir, map[string]string{".env": "API_TOKEN=abcdefghijklmnopqrstuvwxyz\n", "main.go": "package main\n"})
	ed := &testkit.Editor{T: t, Verdict: editor.Verdict{Decision: editor.DecisionReject}}
	h := newHarness(t, "pulsing", SessionConfig{Root: dir, Mode: ModeConfirmSensitive, Editor: ed})
	for _, cmd := range []string{
		"git show HEAD:.env | rev", "git log -p | fold -w 8", "git cat-file --batch-all-objects --batch", "git grep API HEAD",
		"git grep --cached API", "git diff HEAD", "git diff --cached", "git blame .env", "git archive HEAD", "git log -L1,1:.env",
		"git log --follow -p -- .env", "git stash show -p", "git format-patch -1 --stdout",
	} {
		before := len(ed.Asked())
		res := h.call("shell", map[string]any{"command": cmd})
		if !strings.Contains(res.Output, "Action cancelled by user") || len(ed.Asked()) != before+1 {
			t.Errorf("%q ran without confirmation: %s", cmd, res.Output)
		}
		if strings.Contains(res.Output, "abcdefghij") {
			t.Errorf("%q printed the secret: %s", cmd, res.Output)
		}
	}
	before := len(ed.Asked())
	for _, cmd := range []string{"git status", "git log --oneline", "git log --stat", "git diff", "git diff -- main.go", "git branch", "git rev-parse HEAD"} {
		// They may fail (the sandbox masks .env, which git diff cannot
		// hash): what matters is that nobody was asked.
		h.call("shell", map[string]any{"command": cmd})
	}
	if len(ed.Asked()) != before {
		t.Errorf("read-only git commands asked for confirmation %d times", len(ed.Asked())-before)
	}
}
