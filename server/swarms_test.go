package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace/trust"
)

const swarmScript = `
-- 01-propose.json --
{"expect": {"messagesContain": ["Task: Add notes"]}, "tool_calls": [{"name": "fs_write", "args": {"path": "NOTES.md", "content": "notes\n"}}]}
-- 02-done.json --
{"expect": {"lastToolResultContains": "queued"}, "text": "Proposed NOTES.md."}
`

// TestSwarmOverLSP drives a swarm as the editor's Swarm view does:
// autarch.startSwarm with the human arbiter, the proposal awaiting in
// autarch/swarms (as a diff), autarch.stopSwarm while it waits, then
// autarch.resumeSwarm (the agent is not run again), a refused and an
// accepted autarch.decideSwarmProposal, events as autarch/swarmEvent.
func TestSwarmOverLSP(t *testing.T) {
	h, dir, model := swarmServer(t, "", false, swarmScript)
	exec := func(command string, arg, result any) error {
		return h.call("workspace/executeCommand", map[string]any{"command": command, "arguments": []any{arg}}, result)
	}
	if err := exec(editor.CommandStartSwarm, editor.StartSwarmParams{Task: "Add notes", Agents: []string{"a b"}}, nil); err == nil || !strings.Contains(err.Error(), "agent \"a b\"") {
		t.Errorf("a bad agent name was accepted: %v", err)
	}
	var ref editor.SwarmRef
	if err := exec(editor.CommandStartSwarm, editor.StartSwarmParams{Task: "Add notes", Agents: []string{"explorer"}, Rounds: 1, AllowWrite: true}, &ref); err != nil || ref.SwarmID == "" {
		t.Fatalf("startSwarm = %+v, %v", ref, err)
	}
	wait := func(what string, ok func(editor.SwarmSnapshot) bool) editor.SwarmSnapshot {
		t.Helper()
		var last editor.SwarmSnapshot
		testkit.CheckFor(t, 60*time.Second, 50*time.Millisecond, func() error {
			var list []editor.SwarmSnapshot
			if err := h.call(editor.MethodSwarms, map[string]any{}, &list); err != nil {
				t.Fatal(err)
			}
			if len(list) != 1 || !ok(list[0]) {
				return fmt.Errorf("the swarm never became %s: %+v", what, list)
			}
			last = list[0]
			return nil
		})
		return last
	}
	awaiting := func(s editor.SwarmSnapshot) bool {
		return s.Status == "running" && s.Stage == "arbiter" && len(s.Proposals) == 1 && s.Proposals[0].Action == ""
	}
	snap := wait("awaiting the arbiter", awaiting)
	p := snap.Proposals[0]
	if p.Path != "NOTES.md" || p.Agent != "explorer" || !strings.Contains(p.Diff, "+notes") || snap.Arbiter != "human" || !snap.AllowWrite {
		t.Errorf("awaiting swarm = %+v", snap)
	}
	keys := map[string]bool{}
	for _, c := range snap.Context {
		keys[c.Key] = true
	}
	if !keys["phase"] || snap.Phase != 1 || len(snap.Agents) != 1 {
		t.Errorf("context %v, phase %d, agents %v", keys, snap.Phase, snap.Agents)
	}
	h.waitNote(editor.MethodSwarmEvent)
	for end := time.Now().Add(10 * time.Second); ; {
		if n := h.waitNote("window/showMessage"); strings.Contains(string(n.params), "await the arbiter (human)") && strings.Contains(string(n.params), "Swarm view") {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the user was not told that a proposal awaits them")
		}
	}

	// Stopped while it waits for the human, then resumed: the agent's turn
	// is not run again (the script has no more steps).
	if err := exec(editor.CommandStopSwarm, ref, nil); err != nil {
		t.Fatal(err)
	}
	wait("stopped", func(s editor.SwarmSnapshot) bool { return s.Status == "stopped" })
	if err := exec(editor.CommandStopSwarm, ref, nil); err == nil {
		t.Error("a swarm that is not running was stopped")
	}
	if err := exec(editor.CommandResumeSwarm, ref, nil); err != nil {
		t.Fatal(err)
	}
	wait("awaiting the arbiter again", awaiting)

	if err := exec(editor.CommandDecideSwarmProposal, editor.SwarmDecisionParams{SwarmID: ref.SwarmID, ProposalID: p.ID, Action: "maybe"}, nil); err == nil {
		t.Error("an unknown action was accepted")
	}
	if err := exec(editor.CommandDecideSwarmProposal, editor.SwarmDecisionParams{SwarmID: ref.SwarmID, ProposalID: p.ID, Action: "reject", Notes: "not now"}, nil); err != nil {
		t.Fatal(err)
	}
	done := wait("done", func(s editor.SwarmSnapshot) bool { return s.Status == "done" })
	if d := done.Proposals[0]; d.Action != "reject" || d.Notes != "not now" || d.Applied || len(done.Commits) != 0 {
		t.Errorf("done swarm's proposal = %+v, commits %v", d, done.Commits)
	}
	if err := exec(editor.CommandResumeSwarm, ref, nil); err == nil || !strings.Contains(err.Error(), "is done") {
		t.Errorf("resume of a done swarm: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "NOTES.md")); err == nil {
		t.Error("NOTES.md was written in the user's folder")
	}
	if n := model.Remaining(); n != 0 {
		t.Errorf("%d scripted steps unused", n)
	}
}

// TestSwarmOverLSPRefusesTheWrite: a swarm started from the editor runs
// its tool calls through the project's hooks (trusted) and guardrails (no
// trust needed: they only restrict); either refuses the fs_write, so
// nothing reaches the arbiter.
func TestSwarmOverLSPRefusesTheWrite(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		trusted      bool
		refused      string // the refusal the agent reads
		by           string
	}{
		{"hooks", `hooks:
  pre_tool_use:
    - name: no-notes
      matcher: "^fs_write$"
      command: "echo 'notes are written by people' >&2; exit 2"
`, true, "Blocked by hook: notes are written by people (hook", "the hook"},
		{"guardrails", "guardrails:\n  protected: [\"NOTES.md\"]\n", false, "Guardrail: NOTES.md is protected (NOTES.md)", "the guardrails"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := `
-- 01-propose.json --
{"expect": {"messagesContain": ["Task: Add notes"]}, "tool_calls": [{"name": "fs_write", "args": {"path": "NOTES.md", "content": "notes\n"}}]}
-- 02-refused.json --
{"expect": {"lastToolResultContains": "` + tc.refused + `"}, "text": "NOTES.md was refused."}
`
			last, model := runSwarmOverLSP(t, tc.config, tc.trusted, script)
			if last.Status != "done" || len(last.Proposals) != 0 {
				t.Fatalf("swarm = %+v: want done with the write refused by %s", last, tc.by)
			}
			if n := model.Remaining(); n != 0 {
				t.Errorf("%d scripted steps unused", n)
			}
		})
	}
}

// runSwarmOverLSP starts a one-round swarm (agent explorer, scripted as
// script, writes allowed) from the editor (swarmServer) and returns its
// snapshot once it ended.
func runSwarmOverLSP(t *testing.T, config string, trusted bool, script string) (editor.SwarmSnapshot, *scripted.Server) {
	t.Helper()
	h, _, model := swarmServer(t, config, trusted, script)
	var ref editor.SwarmRef
	if err := h.call("workspace/executeCommand", map[string]any{"command": editor.CommandStartSwarm,
		"arguments": []any{editor.StartSwarmParams{Task: "Add notes", Agents: []string{"explorer"}, Rounds: 1, AllowWrite: true}}}, &ref); err != nil {
		t.Fatal(err)
	}
	var last editor.SwarmSnapshot
	// The caller checks how the swarm ended: a swarm still running after
	// the deadline is its failure to report.
	_ = testkit.Poll(60*time.Second, 50*time.Millisecond, func() error {
		var list []editor.SwarmSnapshot
		if err := h.call(editor.MethodSwarms, map[string]any{}, &list); err != nil {
			t.Fatal(err)
		}
		if len(list) == 1 {
			last = list[0]
		}
		if last.Status != "done" && last.Status != "failed" {
			return fmt.Errorf("the swarm is %s", last.Status)
		}
		return nil
	})
	return last, model
}

// swarmServer is a server initialized on a fresh repository (main.go, and
// .autarch/config.yaml when config is given, trusted or not), its model
// scripted as script.
func swarmServer(t *testing.T, config string, trusted bool, script string) (*harness, string, *scripted.Server) {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644)
	if config != "" {
		os.MkdirAll(filepath.Join(dir, ".autarch"), 0o755)
		os.WriteFile(filepath.Join(dir, ".autarch", "config.yaml"), []byte(config), 0o644)
	}
	testkit.Commit(t, dir)
	trustFile := filepath.Join(t.TempDir(), "trusted.json")
	t.Setenv("AUTARCH_TRUST_FILE", trustFile)
	if trusted {
		cfg, err := trust.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := trust.At(trustFile).Trust(cfg); err != nil {
			t.Fatal(err)
		}
	}
	url, model := testkit.StartScript(t, script)
	h := newHarness(t, wired)
	h.initFolder(dir, "notes", map[string]any{}, editor.Settings{Model: editor.ModelSettings{Name: "scripted", BaseURL: url}})
	h.setTestKey()
	return h, dir, model
}
