package orchestrate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// swarmHooks is a project configuration whose hooks block the swarm's
// file tools under private/ and log every event with the swarm's identity
// to $SWARM_HOOK_LOG.
const swarmHooks = `hooks:
  pre_tool_use:
    - name: no-private
      matcher: "^fs_(read|write)$"
      file_patterns: ["private/**"]
      command: "echo 'private/ is off limits to the swarm' >&2; exit 2"
    - name: log-pre
      command: 'echo "pre $AUTARCH_TOOL agent=$AUTARCH_AGENT swarm=$AUTARCH_SWARM file=$AUTARCH_FILE" >> "$SWARM_HOOK_LOG"'
  post_tool_use:
    - name: log-post
      command: 'echo "post $AUTARCH_TOOL agent=$AUTARCH_AGENT swarm=$AUTARCH_SWARM" >> "$SWARM_HOOK_LOG"; echo "checked by log-post"'
  session_start:
    - command: 'echo "start agent=$AUTARCH_AGENT swarm=$AUTARCH_SWARM" >> "$SWARM_HOOK_LOG"'
  session_end:
    - command: 'echo "end swarm=$AUTARCH_SWARM" >> "$SWARM_HOOK_LOG"'
`

// hookedWorld is a hooks scenario's world: the configuration and a
// private file committed, the hooks' log outside the repository, and the
// project loaded as trust (a store in which the test trusts it, or not).
func hookedWorld(t *testing.T, scenario, config string, trusted bool) (*world, tools.Project, string) {
	t.Helper()
	w := newWorld(t, scenario)
	os.MkdirAll(filepath.Join(w.work, ".autarch"), 0o755)
	os.MkdirAll(filepath.Join(w.work, "private"), 0o755)
	if err := os.WriteFile(filepath.Join(w.work, ".autarch", "config.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.work, "private", "key.txt"), []byte("the key\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, w.work, "add", ".")
	gitRun(t, w.work, "commit", "-q", "-m", "hooks")
	log := filepath.Join(t.TempDir(), "hooks.log")
	t.Setenv("SWARM_HOOK_LOG", log)
	store := trust.At(filepath.Join(t.TempDir(), "trusted.json"))
	if trusted {
		cfg, err := trust.Read(w.work)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Trust(cfg); err != nil {
			t.Fatal(err)
		}
	}
	p, err := tools.LoadProject(w.work, store)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Trust == trust.Trusted; got != trusted {
		t.Fatalf("trusted = %v (%s), want %v", got, p.Trust, trusted)
	}
	return w, p, log
}

// runHooked runs one round of the agent "explorer" with the project's
// hooks.
func runHooked(t *testing.T, w *world, p tools.Project) *State {
	t.Helper()
	agents := []editor.SwarmAgent{{Name: "explorer", Role: RoleExplorer}}
	o := w.newOrchestrator(Config{Models: map[string]agent.Model{"explorer": w.model("explorer")}, Hooks: p.Hooks,
		Arbiter: func(string) Arbiter { return ModelArbiter{Model: w.model("arbiter"), ModelName: "arbiter-model"} }})
	st := runToDone(t, o, Options{Task: "read the code", Agents: agents, Rounds: 1, Arbiter: "arbiter-model"})
	if n := w.models["explorer"].Remaining(); n != 0 {
		t.Errorf("%d scripted steps unused", n)
	}
	return st
}

// TestSwarmHooks: a trusted project's hooks run around every swarm tool
// call as they do around the agent loop's: pre_tool_use blocks fs_read
// and fs_write under private/ (the model reads the hook and its message;
// nothing is proposed), lets the rest through, post_tool_use runs after
// the call and its output reaches the model, session_start and
// session_end frame the run, and every hook knows the agent and the
// swarm (AUTARCH_AGENT, AUTARCH_SWARM).
func TestSwarmHooks(t *testing.T) {
	w, p, log := hookedWorld(t, "hooks", swarmHooks, true)
	st := runHooked(t, w, p)
	if len(st.Proposals) != 1 || st.Proposals[0].Path != "docs/a.md" || st.Proposals[0].Action != ActionApprove {
		t.Errorf("proposals = %+v, want docs/a.md alone (the blocked private/ write is not proposed)", st.Proposals)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	id := st.ID
	want := []string{
		"start agent= swarm=" + id,
		"pre fs_read agent=explorer swarm=" + id + " file=main.go",
		"post fs_read agent=explorer swarm=" + id,
		"pre fs_write agent=explorer swarm=" + id + " file=docs/a.md",
		"post fs_write agent=explorer swarm=" + id,
		"end swarm=" + id,
	}
	if got := strings.Split(strings.TrimSpace(string(b)), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hook log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	tr, err := Transcript(w.repo.StateDir(), id)
	if err != nil {
		t.Fatal(err)
	}
	blocked := 0
	for _, ev := range tr {
		if ev.Kind == "tool_result" && ev.Failed && strings.Contains(ev.Text, `Blocked by hook: private/ is off limits to the swarm (hook \"no-private\")`) {
			blocked++
		}
	}
	if blocked != 2 {
		t.Errorf("%d blocked calls in the transcript, want 2 (fs_read and fs_write of private/key.txt)", blocked)
	}
	// every hook that ran has the spec's line in the human log
	lines := map[string]int{}
	for _, ev := range tr {
		if ev.Kind == "hook" {
			lines[ev.Text]++
		}
	}
	for _, want := range []string{"🔍 Hook no-private: ⛔ blocked fs_read", "🔍 Hook no-private: ⛔ blocked fs_write", "🔍 Hook log-pre: ✅", "🔍 Hook log-post: ✅"} {
		if lines[want] == 0 {
			t.Errorf("no %q line in the swarm's log; hook lines: %v", want, lines)
		}
	}
}

// TestSwarmHooksUntrusted: an untrusted project's hooks never run for the
// swarm: private/ is read, nothing is logged.
func TestSwarmHooksUntrusted(t *testing.T) {
	w, p, log := hookedWorld(t, "hooks-untrusted", swarmHooks, false)
	if len(p.Ignored) == 0 {
		t.Fatalf("the untrusted hooks are not reported as ignored: %+v", p)
	}
	st := runHooked(t, w, p)
	if len(st.Proposals) != 0 {
		t.Errorf("proposals = %+v", st.Proposals)
	}
	if b, err := os.ReadFile(log); !os.IsNotExist(err) {
		t.Errorf("an untrusted hook ran: %v\n%s", err, b)
	}
}

// llmHooks log every model call with the caller's role, agent and swarm
// to $SWARM_HOOK_LOG, give the model a house style, and block the
// arbiter's calls while $BLOCK_ARBITER is set.
const llmHooks = `hooks:
  pre_llm_call:
    - name: log-llm
      command: |
        role=$(grep -o '"role":"[a-z]*"' | cut -d'"' -f4)
        echo "pre role=$role agent=$AUTARCH_AGENT swarm=$AUTARCH_SWARM" >> "$SWARM_HOOK_LOG"
        echo '{"additionalContext": "house style: short lines"}'
    - name: no-arbiter
      command: |
        if [ -n "$BLOCK_ARBITER" ] && [ "$AUTARCH_AGENT" = arbiter ]; then echo "arbiter models are off today" >&2; exit 2; fi
  post_llm_call:
    - command: 'echo "post agent=$AUTARCH_AGENT swarm=$AUTARCH_SWARM" >> "$SWARM_HOOK_LOG"'
`

// TestSwarmModelCallHooks: the swarm's agents' and arbiter model's calls
// go through pre_llm_call and post_llm_call as the agent loop's do, with
// the caller's role, AUTARCH_AGENT and AUTARCH_SWARM; pre_llm_call's
// additionalContext reaches the model; a blocked arbiter call fails the
// run with the hook's reason and writes nothing, and the resumed run
// asks the arbiter again.
func TestSwarmModelCallHooks(t *testing.T) {
	w, p, log := hookedWorld(t, "llm-hooks", llmHooks, true)
	t.Setenv("BLOCK_ARBITER", "1")
	agents := []editor.SwarmAgent{{Name: "explorer", Role: RoleExplorer}}
	o := w.newOrchestrator(Config{Models: map[string]agent.Model{"explorer": w.model("explorer")}, Hooks: p.Hooks,
		Arbiter: func(string) Arbiter {
			return ModelArbiter{Model: w.model("arbiter"), ModelName: "arbiter-model", Hooks: p.Hooks}
		}})
	ctx := context.Background()
	st := startSwarm(t, o, Options{Task: "document", Agents: agents, Rounds: 1, Arbiter: "arbiter-model", AllowWrite: true})
	st, err := o.Run(ctx, st.ID)
	if !errors.Is(err, agent.ErrBlocked) || !strings.Contains(err.Error(), `arbiter models are off today (hook "no-arbiter")`) || st.Status != StatusFailed {
		t.Fatalf("run = %v (%s), want failed: the arbiter's call blocked by no-arbiter", err, st.Status)
	}
	if len(st.Commits) != 0 || len(st.Proposals) != 1 || st.Proposals[0].Action != "" {
		t.Errorf("after the blocked arbiter: commits %v, proposals %+v", st.Commits, st.Proposals)
	}
	t.Setenv("BLOCK_ARBITER", "")
	if st, err = o.Run(ctx, st.ID); err != nil || st.Status != StatusDone || len(st.Commits) != 1 {
		t.Fatalf("resumed run: %v (%s: %s), commits %v", err, st.Status, st.Reason, st.Commits)
	}
	for name, m := range w.models {
		if n := m.Remaining(); n != 0 {
			t.Errorf("%s: %d scripted steps unused", name, n)
		}
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	id := st.ID
	want := []string{
		"pre role=explorer agent=explorer swarm=" + id, "post agent=explorer swarm=" + id,
		"pre role=explorer agent=explorer swarm=" + id, "post agent=explorer swarm=" + id,
		"pre role=arbiter agent=arbiter swarm=" + id, // blocked: no post
		"pre role=arbiter agent=arbiter swarm=" + id, "post agent=arbiter swarm=" + id,
	}
	if got := strings.Split(strings.TrimSpace(string(b)), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hook log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
