package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace/treehash"
)

// dirFingerprint hashes every file and directory under dir, .git
// included, with git's view of its refs and worktrees.
func dirFingerprint(t *testing.T, dir string) string {
	t.Helper()
	sum, _, err := treehash.Sum(dir)
	if err != nil {
		t.Fatal(err)
	}
	return sum + gitCmd(t, dir, "for-each-ref") + gitCmd(t, dir, "worktree", "list", "--porcelain") + gitCmd(t, dir, "rev-parse", "HEAD")
}

// autarch run --dry-run takes a quick workflow through its stages against
// the scripted model, prints the plan, and leaves the repository as it
// was: no worktree, branch, commit or state under .git.
func TestRunDryRun(t *testing.T) {
	dir, url, model := scriptedProject(t, "testdata/run-dry.txt", "", "")
	before := dirFingerprint(t, dir)
	code, out, errb := run(t, "run", "--root", dir, "--base-url", url, "--model", "scripted", "--yes", "--dry-run", "--name", "saturate", "Make Add saturate on overflow")
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errb)
	}
	for _, want := range []string{"\tsaturate\tdone\tdry run completed\n", "Dry run: 5 actions planned, none executed; nothing was changed.",
		"pulse pulse-1:\n    2. would edit calc.go: replace 2 lines with 11 — Saturate Add", "5. would run `go test ./...` (dev) — Run the tests",
		"saturate_test.go: new file (12 lines)"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errb, "◆ pulse pulse-1 succeeded: fix(calc): saturate Add on overflow (dry run: nothing committed)") {
		t.Errorf("the run's log does not say the pulse committed nothing:\n%s", errb)
	}
	if after := dirFingerprint(t, dir); after != before {
		t.Errorf("autarch run --dry-run changed the repository (.git/autarch exists: %v)", exists(filepath.Join(dir, ".git", "autarch")))
	}
	if n := model.Remaining(); n != 0 {
		t.Errorf("%d scripted steps unused", n)
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// A dry run that no one can steer stops at its first card, says how to go
// on, and still changes nothing.
func TestRunDryRunWithoutATerminal(t *testing.T) {
	dir, url, _ := scriptedProject(t, "testdata/run-dry.txt", "", "02")
	before := dirFingerprint(t, dir)
	code, out, errb := run(t, "run", "--root", dir, "--base-url", url, "--model", "scripted", "--dry-run", "--name", "saturate", "Make Add saturate on overflow")
	if code != 3 || !strings.Contains(errb, "pass --yes") || !strings.Contains(out, "Dry run: no write or command was planned") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errb)
	}
	if strings.Contains(errb, "autarch resume") {
		t.Errorf("a dry run keeps nothing to resume, yet resume is suggested:\n%s", errb)
	}
	if dirFingerprint(t, dir) != before {
		t.Error("the stopped dry run changed the repository")
	}
}

// autarch agent --dry-run runs one turn with reads executed and the write
// and the command recorded: the JSON result carries the plan, stderr
// shows it in words, and the workspace is unchanged.
func TestAgentDryRun(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc A() int { return 1 }\n"), 0o644)
	url, _ := testkit.StartScript(t, `-- 01.json --
{"tool_calls": [{"name": "read_file", "args": {"path": "a.go", "reason": "look at a.go"}}]}
-- 02.json --
{"expect": {"lastToolResultContains": "return 1"}, "tool_calls": [{"name": "edit_file", "args": {"path": "a.go", "oldString": "return 1", "newString": "return 2", "reason": "make A return 2"}}]}
-- 03.json --
{"expect": {"lastToolResultContains": "would edit a.go: replace 1 line with 1"}, "tool_calls": [{"name": "shell", "args": {"command": "go vet ./... > vet.txt", "reason": "vet"}}]}
-- 04.json --
{"expect": {"lastToolResultContains": "[DRY-RUN]"}, "tool_calls": [{"name": "complete_pulse", "args": {"summary": "fix: A returns 2", "filesChanged": ["a.go"], "reason": "done"}}]}
`)
	code, out, errb := run(t, "agent", "--root", dir, "--role", "pulsing", "--base-url", url, "--model", "scripted", "--dry-run", "change A")
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errb)
	}
	var res struct {
		Outcome string `json:"outcome"`
		DryRun  struct {
			Planned []struct {
				Tool, Action string
			} `json:"planned"`
			Summary string `json:"summary"`
		} `json:"dry_run"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stdout %q: %v", out, err)
	}
	if res.Outcome != "terminal" || len(res.DryRun.Planned) != 2 || res.DryRun.Planned[1].Action != "would run `go vet ./... > vet.txt` (dangerous)" {
		t.Errorf("result = %+v", res)
	}
	if !strings.Contains(errb, "1. would edit a.go: replace 1 line with 1 — make A return 2") || !strings.Contains(res.DryRun.Summary, "a.go: replace 1 line with 1") {
		t.Errorf("plan not shown:\nstderr: %s\nsummary: %s", errb, res.DryRun.Summary)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.go")); !strings.Contains(string(b), "return 1") || exists(filepath.Join(dir, "vet.txt")) {
		t.Error("the dry run changed the workspace")
	}
}
