package orchestrate

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace/git"
	"github.com/autarch-dev/autarch/workspace/treehash"
)

// world is a user's repository (its git dir kept outside the work tree, so
// that the work tree's hash shows the user's files alone), the project's
// embedded NATS and the scripted models of a scenario.
type world struct {
	t      testing.TB
	work   string
	repo   *git.Repo
	open   OpenEngine
	models map[string]*scripted.Server
	urls   map[string]string
	events []editor.SwarmEvent
}

func gitRun(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// newWorld starts the scenario's scripted models (one per "NAME/" prefix
// of its steps) on a fresh repository with main.go committed.
func newWorld(t testing.TB, scenario string) *world {
	t.Helper()
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	gitRun(t, dir, "init", "-q", "-b", "main", "--separate-git-dir", filepath.Join(dir, "gitdir"), work)
	if err := os.WriteFile(filepath.Join(work, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, work, "add", "main.go")
	gitRun(t, work, "commit", "-q", "-m", "initial")
	repo, open := openProject(t, work)
	w := &world{t: t, work: work, repo: repo, open: open, models: map[string]*scripted.Server{}, urls: map[string]string{}}
	if scenario == "" {
		return w
	}
	// Each agent's steps are its own scenario's: NAME/NN-step.json.
	sc := testkit.LoadScenario(t, filepath.Join("testdata", scenario+".txtar"))
	byAgent := map[string]*testkit.Scenario{}
	for _, f := range sc.Steps {
		name, step, ok := strings.Cut(f.Name, "/")
		if !ok {
			t.Fatalf("%s: step %s is not NAME/NN-step.json", scenario, f.Name)
		}
		if byAgent[name] == nil {
			byAgent[name] = &testkit.Scenario{Path: sc.Path + ":" + name, Comment: sc.Comment}
		}
		byAgent[name].Steps = append(byAgent[name].Steps, txtar.File{Name: step, Data: f.Data})
	}
	for name, agentScenario := range byAgent {
		w.urls[name], w.models[name] = agentScenario.StartModel(t)
	}
	return w
}

func (w *world) model(name string) agent.Model {
	url, ok := w.urls[name]
	if !ok {
		w.t.Fatalf("no scripted model %s", name)
	}
	return openai.New(openai.Config{BaseURL: url})
}

// orchestrator runs the agents on their scripted models, one after
// another (the scenarios script what each agent sees of the ones before
// it), and the arbiter model scripted as arbiterScript.
func (w *world) orchestrator(agents []editor.SwarmAgent, arbiterScript string) *Orchestrator {
	models := map[string]agent.Model{}
	for _, a := range agents {
		models[a.Name] = w.model(a.Name)
	}
	arb := ModelArbiter{Model: w.model(arbiterScript), ModelName: "arbiter-model"}
	return w.newOrchestrator(Config{Models: models, DefaultModel: "scripted", Concurrency: 1,
		Arbiter: func(string) Arbiter { return arb }, Events: func(ev editor.SwarmEvent) { w.events = append(w.events, ev) }})
}

// sharedContext opens the swarm's engine (closed with the test) and
// reads its shared context.
func (w *world) sharedContext(st *State) (Engine, []editor.SwarmContextEntry) {
	w.t.Helper()
	eng, err := w.open(context.Background(), st.ID, st.Worktree, Policy{})
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { eng.Close() })
	entries, err := eng.Context(context.Background())
	if err != nil {
		w.t.Fatal(err)
	}
	return eng, entries
}

func (w *world) treeHash() string {
	w.t.Helper()
	sum, _, err := treehash.Sum(w.work)
	if err != nil {
		w.t.Fatal(err)
	}
	return sum
}

func fileIn(t *testing.T, dir, rel string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

func TestSwarmScenario(t *testing.T) {
	for _, allowWrite := range []bool{true, false} {
		name := map[bool]string{true: "allow-write", false: "no-write"}[allowWrite]
		t.Run(name, func(t *testing.T) {
			w := newWorld(t, "two-proposals")
			before, head := w.treeHash(), gitRun(t, w.work, "rev-parse", "HEAD")
			agents, err := ParseAgents([]string{"explorer", "critic"})
			if err != nil {
				t.Fatal(err)
			}
			o := w.orchestrator(agents, "arbiter")
			ctx := context.Background()
			st := runToDone(t, o, Options{Task: "document the project", Agents: agents, Rounds: 1, Arbiter: "arbiter-model", AllowWrite: allowWrite})

			// The user's folder, HEAD and branch are untouched.
			if after := w.treeHash(); after != before {
				t.Errorf("the user's work tree changed: %s → %s", before, after)
			}
			if got := gitRun(t, w.work, "rev-parse", "HEAD"); got != head {
				t.Errorf("the user's HEAD moved: %s → %s", head, got)
			}
			if got := gitRun(t, w.work, "status", "--porcelain"); got != "" {
				t.Errorf("the user's folder is not clean:\n%s", got)
			}

			// Two proposals, one approved, one rejected with notes.
			if len(st.Proposals) != 2 {
				t.Fatalf("proposals = %+v", st.Proposals)
			}
			byPath := map[string]editor.SwarmProposal{}
			for _, p := range st.Proposals {
				byPath[p.Path] = p
			}
			notes, mainGo := byPath["docs/notes.md"], byPath["main.go"]
			if notes.Action != ActionApprove || notes.Agent != "explorer" || notes.Applied != allowWrite {
				t.Errorf("docs/notes.md: %+v", notes)
			}
			if mainGo.Action != ActionReject || mainGo.Notes != "no change is needed: main.go already builds" || mainGo.Applied {
				t.Errorf("main.go: %+v", mainGo)
			}

			// Only with --allow-write is the approved write applied and
			// committed, in the swarm's worktree on its branch.
			content, exists := fileIn(t, st.Worktree, "docs/notes.md")
			mainContent, _ := fileIn(t, st.Worktree, "main.go")
			commits := gitRun(t, w.work, "rev-list", "--count", head+".."+st.Branch)
			if allowWrite {
				if !exists || content != "# Notes\n\nThe entry point is main.go.\n" {
					t.Errorf("docs/notes.md in the worktree: %q (exists %v)", content, exists)
				}
				if commits != "1" || len(st.Commits) != 1 {
					t.Errorf("commits on %s: %s (state %v)", st.Branch, commits, st.Commits)
				}
				if files := gitRun(t, w.work, "show", "--name-only", "--format=", st.Branch); files != "docs/notes.md" {
					t.Errorf("the round's commit touches %q", files)
				}
				if msg := gitRun(t, w.work, "log", "-1", "--format=%B", st.Branch); !strings.Contains(msg, "Swarm-Round: 1") {
					t.Errorf("commit message:\n%s", msg)
				}
			} else {
				if exists || commits != "0" || len(st.Commits) != 0 {
					t.Errorf("without --allow-write: docs/notes.md exists %v, commits %s", exists, commits)
				}
			}
			if mainContent != "package main\n\nfunc main() {}\n" {
				t.Errorf("the rejected main.go was written: %q", mainContent)
			}

			// The findings went through ctx; the transcript records every decision.
			eng, entries := w.sharedContext(st)
			found := map[string]any{}
			for _, e := range entries {
				found[e.Key] = e.Value
			}
			if f, _ := found["explorer.list_code_files"].(map[string]any); f["agent"] != "explorer" || f["task"] != "list_code_files" {
				t.Errorf("the explorer's finding: %v", found)
			}
			if found["phase"] != float64(1) {
				t.Errorf("phase = %v, want 1", found["phase"])
			}
			snap, err := o.Snapshot(ctx, st.ID)
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			if len(snap.Queue) != 1 || snap.Queue[0].Kind != "review_main" || snap.Queue[0].Status != "claimed" || snap.Queue[0].Holder != "critic" || snap.Queue[0].LeaseUntil == "" {
				t.Errorf("the snapshot's queue = %+v, want review_main held by critic", snap.Queue)
			}
			if len(snap.Context) != len(entries) || snap.Phase != 1 || len(snap.Proposals) != 2 {
				t.Errorf("snapshot: %d context keys (want %d), phase %d, %d proposals", len(snap.Context), len(entries), snap.Phase, len(snap.Proposals))
			}
			if pending, err := eng.Proposals(ctx); err != nil || len(pending) != 0 {
				t.Errorf("proposals still pending in the engine: %v %v", pending, err)
			}
			tr, err := Transcript(w.repo.StateDir(), st.ID)
			if err != nil {
				t.Fatal(err)
			}
			decisions := map[string]editor.SwarmEvent{}
			for _, ev := range tr {
				if ev.Kind == "decision" {
					decisions[ev.Path] = ev
				}
			}
			if d := decisions["main.go"]; d.Action != ActionReject || !strings.Contains(d.Text, "already builds") {
				t.Errorf("the transcript's main.go decision: %+v", d)
			}
			if d := decisions["docs/notes.md"]; d.Action != ActionApprove {
				t.Errorf("the transcript's notes decision: %+v", d)
			}
			var applied []string
			for _, ev := range tr {
				if ev.Kind == "applied" {
					applied = append(applied, ev.Text)
				}
			}
			if len(applied) != 1 || allowWrite == strings.Contains(applied[0], "--allow-write") {
				t.Errorf("applied events: %q", applied)
			}
		})
	}
}

// TestMalformedArbiter: prose, then a fenced block — both refused; the
// swarm fails at the arbiter stage with nothing written; resumed with an
// arbiter answering STRICT JSON it applies the write.
func TestMalformedArbiter(t *testing.T) {
	w := newWorld(t, "malformed-arbiter")
	agents := []editor.SwarmAgent{{Name: "explorer", Role: RoleExplorer}}
	ctx := context.Background()
	o := w.orchestrator(agents, "arbiter")
	st := startSwarm(t, o, Options{Task: "take notes", Agents: agents, Rounds: 1, Arbiter: "arbiter-model", AllowWrite: true})
	st, err := o.Run(ctx, st.ID)
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("err = %v, want ErrMalformed saying nothing was written", err)
	}
	if st.Status != StatusFailed || st.Stage != stageArbiter || !strings.Contains(st.Reason, "STRICT JSON") {
		t.Errorf("state: %s at %s: %s", st.Status, st.Stage, st.Reason)
	}
	if _, exists := fileIn(t, st.Worktree, "NOTES.md"); exists {
		t.Error("NOTES.md was written without a decision")
	}
	if n := gitRun(t, w.work, "rev-list", "--count", "main.."+st.Branch); n != "0" {
		t.Errorf("%s commits after a malformed decision", n)
	}
	if st.Proposals[0].Action != "" {
		t.Errorf("the proposal was decided: %+v", st.Proposals[0])
	}

	// Resumed (another process: a new orchestrator) with a working arbiter.
	st, err = w.orchestrator(agents, "fixed").Run(ctx, st.ID)
	if err != nil || st.Status != StatusDone {
		t.Fatalf("resume: %v (%s: %s)", err, st.Status, st.Reason)
	}
	if content, _ := fileIn(t, st.Worktree, "NOTES.md"); content != "notes\n" {
		t.Errorf("NOTES.md after the resumed arbiter: %q", content)
	}
	if len(st.Proposals) != 1 || st.Proposals[0].Notes != "fine" {
		t.Errorf("proposals after resume: %+v (the agent's proposal must not be asked twice)", st.Proposals)
	}
}

// TestRefusedStarts: the hostile and mistaken inputs of Start, Run and Load.
func TestRefusedStarts(t *testing.T) {
	w := newWorld(t, "")
	o := w.newOrchestrator(Config{Arbiter: func(string) Arbiter { return NewInbox() }})
	ctx := context.Background()
	agents := []editor.SwarmAgent{{Name: "explorer", Role: RoleExplorer}}
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"no task", Options{Task: "  ", Agents: agents}, "no task"},
		{"no agents", Options{Task: "x"}, "no agents"},
		{"too many rounds", Options{Task: "x", Agents: agents, Rounds: 51}, "give 1 to 50"},
		{"bad base", Options{Task: "x", Agents: agents, Base: "no-such-ref"}, `base "no-such-ref"`},
	} {
		if _, err := o.Start(ctx, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	for _, id := range []string{"../../etc", "", "0123456789ab"} {
		if _, err := o.Run(ctx, id); err == nil {
			t.Errorf("Run(%q) accepted", id)
		}
	}
}

// TestReadOnlyEnvelope: a proposal round with a JSON-envelope agent.
func TestReadOnlyEnvelope(t *testing.T) {
	w := newWorld(t, "read-only-envelope")
	agents := []editor.SwarmAgent{{Name: "critic", Role: RoleCritic, Envelope: true}}
	o := w.orchestrator(agents, "critic") // the arbiter is never asked: nothing is proposed
	st := runToDone(t, o, Options{Task: "review the swarm's safety", Agents: agents, Rounds: 1, Arbiter: "human", ReadOnly: true})
	if len(st.Proposals) != 0 {
		t.Errorf("a read-only round queued proposals: %+v", st.Proposals)
	}
	want := ImprovementItem{Area: "safety", Change: "run the arbiter before every write", Rationale: "no unreviewed write reaches disk"}
	if len(st.Improvements) != 1 || st.Improvements[0].Agent != "critic" || len(st.Improvements[0].Items) != 1 || st.Improvements[0].Items[0] != want {
		t.Fatalf("improvements = %+v", st.Improvements)
	}
	_, entries := w.sharedContext(st)
	for _, e := range entries {
		if e.Key == "critic.proposal" {
			if f, _ := e.Value.(map[string]any); f["agent"] != "critic" || f["task"] != "proposal" || f["ok"] != true {
				t.Errorf("the shared proposal: %v", e.Value)
			}
			return
		}
	}
	t.Errorf("no critic.proposal in the shared context: %+v", entries)
}

// TestRateLimitHits: a call refused by the rate limit reaches the model
// with the 429 shape and is recorded in the swarm's state.
func TestRateLimitHits(t *testing.T) {
	t.Setenv("AUTARCH_SWARM_RATE", "30/60s,fs_read=1/60s")
	w := newWorld(t, "rate-limited")
	agents := []editor.SwarmAgent{{Name: "explorer", Role: RoleExplorer}}
	o := w.orchestrator(agents, "explorer")
	st := runToDone(t, o, Options{Task: "read main.go", Agents: agents, Rounds: 1, Arbiter: "human"})
	if len(st.RateLimits) != 1 || st.RateLimits[0] != (editor.SwarmRateLimitHit{Agent: "explorer", Tool: "fs_read", Round: 1, ResetSec: st.RateLimits[0].ResetSec}) || st.RateLimits[0].ResetSec < 1 {
		t.Errorf("rate-limit hits = %+v", st.RateLimits)
	}
	snap := Summary(*st)
	if len(snap.RateLimits) != 1 {
		t.Errorf("the snapshot's rate-limit hits = %+v", snap.RateLimits)
	}
}

// TestHumanAnswersKept: a human's answer is saved as given; a run stopped
// before the second answer asks only for it when resumed.
func TestHumanAnswersKept(t *testing.T) {
	w := newWorld(t, "human-partial")
	agents := []editor.SwarmAgent{{Name: "explorer", Role: RoleExplorer}}
	ctx, cancel := context.WithCancel(context.Background())
	first := NewInbox()
	o := w.newOrchestrator(Config{Models: map[string]agent.Model{"explorer": w.model("explorer")},
		Arbiter: func(string) Arbiter { return first },
		Events: func(ev editor.SwarmEvent) {
			switch {
			case ev.Kind == "awaiting":
				st, _ := w.state(ev.SwarmID)
				first.Answer(st.Proposals[0].ID, ActionReject, "not a.md")
			case ev.Kind == "decision":
				cancel() // the process dies after the first answer
			}
		}})
	st, err := o.Start(ctx, Options{Task: "two files", Agents: agents, Rounds: 1, Arbiter: "human", AllowWrite: true})
	if err != nil {
		t.Fatal(err)
	}
	if st, err = o.Run(ctx, st.ID); st.Status != StatusStopped || st.Proposals[0].Action != ActionReject || st.Proposals[1].Action != "" {
		t.Fatalf("first run: %v, %s, proposals %+v", err, st.Status, st.Proposals)
	}
	var asked []string
	second := NewInbox()
	o2 := w.newOrchestrator(Config{Arbiter: func(string) Arbiter { return askedInbox{second, &asked} }})
	second.Answer(st.Proposals[1].ID, ActionApprove, "")
	if st, err = o2.Run(context.Background(), st.ID); err != nil || st.Status != StatusDone {
		t.Fatalf("resume: %v (%s)", err, st.Reason)
	}
	if strings.Join(asked, ",") != "b.md" || st.Proposals[0].Notes != "not a.md" || !st.Proposals[1].Applied {
		t.Errorf("asked %v; proposals %+v", asked, st.Proposals)
	}
}

// askedInbox notes which paths an Inbox was asked about.
type askedInbox struct {
	*Inbox
	asked *[]string
}

func (a askedInbox) Decide(ctx context.Context, id string, round int, pending []editor.SwarmProposal, record Record) (map[string]Decision, error) {
	for _, p := range pending {
		*a.asked = append(*a.asked, p.Path)
	}
	return a.Inbox.Decide(ctx, id, round, pending, record)
}

func (w *world) state(id string) (*State, error) {
	s, err := openStore(Dir(w.repo.StateDir()), id)
	if err != nil {
		return nil, err
	}
	return s.loadState()
}

// TestTokenBudget: a run that spends its token budget stops the swarm
// (resumable, saying how); the resumed run gets a new budget, runs the
// saved tool call without asking the model again, and finishes.
func TestTokenBudget(t *testing.T) {
	w := newWorld(t, "budget")
	agents := []editor.SwarmAgent{{Name: "explorer", Role: RoleExplorer}}
	ctx := context.Background()
	o := w.orchestrator(agents, "explorer")
	o.cfg.TokenBudget = 500
	st := startSwarm(t, o, Options{Task: "read main.go", Agents: agents, Rounds: 1, Arbiter: "human"})
	st, err := o.Run(ctx, st.ID)
	if err != nil || st.Status != StatusStopped || !strings.Contains(st.Reason, "token budget spent: 600 tokens this run (budget 500)") || !strings.Contains(st.Reason, "--resume "+st.ID) {
		t.Fatalf("run: %v; state %s: %s; want Stopped on the spent budget, saying how to resume", err, st.Status, st.Reason)
	}
	o2 := w.orchestrator(agents, "explorer")
	o2.cfg.TokenBudget = 500
	if st, err = o2.Run(ctx, st.ID); err != nil || st.Status != StatusDone {
		t.Fatalf("resume: %v (%s: %s)", err, st.Status, st.Reason)
	}
	if st.Tokens != 610 {
		t.Errorf("tokens over both runs = %d, want 610", st.Tokens)
	}
	if n := w.models["explorer"].Remaining(); n != 0 {
		t.Errorf("%d scripted steps unused", n)
	}
}
