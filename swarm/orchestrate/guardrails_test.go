package orchestrate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/swarm"
	"github.com/autarch-dev/autarch/tools"
)

// swarmGuardrails protects secrets/ and forbids panic( in written content.
const swarmGuardrails = `guardrails:
  protected: ["secrets/**"]
  code_rules:
    - pattern: 'panic\('
      message: "no panic( here: return an error"
`

// guardedWorld is a scenario's world whose project has guardrails, a
// protected file secrets/token.txt and docs/link.txt, a symlink to it,
// committed; the guardrails as the project loads them.
func guardedWorld(t *testing.T, scenario string) (*world, *tools.Guardrails) {
	t.Helper()
	w := newWorld(t, scenario)
	for _, d := range []string{".autarch", "secrets", "docs"} {
		if err := os.MkdirAll(filepath.Join(w.work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for rel, content := range map[string]string{".autarch/config.yaml": swarmGuardrails, "secrets/token.txt": "t0ken\n"} {
		if err := os.WriteFile(filepath.Join(w.work, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../secrets/token.txt", filepath.Join(w.work, "docs", "link.txt")); err != nil {
		t.Fatal(err)
	}
	gitRun(t, w.work, "add", ".")
	gitRun(t, w.work, "commit", "-q", "-m", "guardrails")
	p, err := tools.LoadProject(w.work, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Guardrails.ProtectedPaths(); len(got) != 1 {
		t.Fatalf("protected = %v", got)
	}
	return w, p.Guardrails
}

// checkUntouched fails unless the worktree's protected files are as
// committed and the refused files do not exist.
func checkUntouched(t *testing.T, st *State, absent ...string) {
	t.Helper()
	if b, _ := os.ReadFile(filepath.Join(st.Worktree, "secrets", "token.txt")); string(b) != "t0ken\n" {
		t.Errorf("secrets/token.txt = %q", b)
	}
	if target, err := os.Readlink(filepath.Join(st.Worktree, "docs", "link.txt")); err != nil || target != "../secrets/token.txt" {
		t.Errorf("docs/link.txt is no longer the symlink: %q %v", target, err)
	}
	for _, rel := range absent {
		if _, err := os.Lstat(filepath.Join(st.Worktree, rel)); !os.IsNotExist(err) {
			t.Errorf("%s exists in the worktree: %v", rel, err)
		}
	}
}

// TestSwarmGuardrails: the swarm's agents work under the project's
// guardrails, as the workflow's do: fs_write of a configured protected
// path, of a symlink leading to one, of a file the secret gate blocks and
// of content a code rule forbids is refused with a readable message and
// proposes nothing; a plain write is proposed and applied.
func TestSwarmGuardrails(t *testing.T) {
	w, g := guardedWorld(t, "guardrails")
	agents := []editor.SwarmAgent{{Name: "explorer", Role: RoleExplorer}}
	o := w.newOrchestrator(Config{Models: map[string]agent.Model{"explorer": w.model("explorer")}, Guardrails: g,
		Arbiter: func(string) Arbiter { return ModelArbiter{Model: w.model("arbiter"), ModelName: "arbiter-model"} }})
	st := runToDone(t, o, Options{Task: "steal the token", Agents: agents, Rounds: 1, Arbiter: "arbiter-model", AllowWrite: true})
	for name, m := range w.models {
		if n := m.Remaining(); n != 0 {
			t.Errorf("%s: %d scripted steps unused", name, n)
		}
	}
	if len(st.Proposals) != 1 || st.Proposals[0].Path != "docs/ok.md" || !st.Proposals[0].Applied {
		t.Errorf("proposals = %+v, want docs/ok.md alone, applied", st.Proposals)
	}
	checkUntouched(t, st, ".env")
	if b, _ := os.ReadFile(filepath.Join(st.Worktree, "main.go")); strings.Contains(string(b), "panic") {
		t.Errorf("main.go was written: %q", b)
	}
	if files := gitRun(t, w.work, "show", "--name-only", "--format=", st.Branch); files != "docs/ok.md" {
		t.Errorf("the round's commit touches %q", files)
	}
}

// approveAll is an arbiter that approves whatever it is shown.
type approveAll struct{ shown *[]editor.SwarmProposal }

func (a approveAll) Decide(_ context.Context, _ string, _ int, pending []editor.SwarmProposal, _ Record) (map[string]Decision, error) {
	out := map[string]Decision{}
	for _, p := range pending {
		*a.shown = append(*a.shown, p)
		out[p.ID] = Decision{Path: p.Path, Action: ActionApprove}
	}
	return out, nil
}

// TestSwarmApplyRechecks: proposals published straight to the swarm's
// NATS subject (past fs_write's checks) and approved are judged again
// when applied: .env (the secret gate), a configured protected path, one
// protected only since the proposal was made (the configuration is read
// again), .git/config, a symlink to a protected file, .autarch's
// configuration and content over the size limit are refused: nothing
// written or committed, the refusal recorded in the state (the snapshot)
// and the transcript, the diff the arbiter saw saying so. A plain
// proposal is still applied and committed alone.
func TestSwarmApplyRechecks(t *testing.T) {
	w, g := guardedWorld(t, "bypass")
	agents := []editor.SwarmAgent{{Name: "explorer", Role: RoleExplorer}}
	var shown []editor.SwarmProposal
	o := w.newOrchestrator(Config{Models: map[string]agent.Model{"explorer": w.model("explorer")}, Guardrails: g,
		Arbiter: func(string) Arbiter { return approveAll{&shown} }, Events: func(ev editor.SwarmEvent) { w.events = append(w.events, ev) }})
	ctx := context.Background()
	st := startSwarm(t, o, Options{Task: "document", Agents: agents, Rounds: 1, Arbiter: "human", AllowWrite: true})
	head := gitRun(t, w.work, "rev-parse", "HEAD")

	// Another process with the project's NATS credentials publishes.
	c, err := swarm.Connect(ctx, swarm.ConnOptionsFromEnv(w.repo.StateDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	opts, err := swarm.OptionsFor(tools.SwarmConfig{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := swarm.Open(ctx, c, st.ID, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		".env":                 `File matches sensitive path pattern`,
		"secrets/token.txt":    "secrets/token.txt is protected (secrets/**)",
		"notes/plan.md":        "notes/plan.md is protected (notes/**)",
		".git/config":          `".git/config" is inside .git`,
		"docs/link.txt":        "docs/link.txt leads to secrets/token.txt, which is protected (secrets/**)",
		".autarch/config.yaml": ".autarch/config.yaml is protected (.autarch/**)",
		"big.txt":              "over the 921600 a proposal may hold",
		"docs/panic.go":        "docs/panic.go breaks a code rule: no panic( here: return an error",
		"docs/ok.md":           "",
	}
	for rel := range want {
		content := "pwned\n"
		switch rel {
		case "big.txt":
			content = strings.Repeat("x", swarm.MaxProposal+1)
		case "docs/ok.md":
			content = "ok\n"
		case "docs/panic.go":
			content = "package docs\n\nfunc f() { panic(1) }\n"
		}
		if _, err := s.Propose(ctx, swarm.Proposal{Agent: "mallory", Path: rel, Content: content, CreateDirs: true}); err != nil {
			t.Fatalf("publish %s: %v", rel, err)
		}
	}
	// The user protects notes/ after the proposal was made (not committed).
	if err := os.WriteFile(filepath.Join(w.work, ".autarch", "config.yaml"), []byte(strings.Replace(swarmGuardrails, `["secrets/**"]`, `["secrets/**", "notes/**"]`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}

	if st, err = o.Run(ctx, st.ID); err != nil || st.Status != StatusDone {
		t.Fatalf("run: %v (%s: %s)", err, st.Status, st.Reason)
	}
	if len(shown) != len(want) {
		t.Fatalf("the arbiter was shown %d proposals, want %d", len(shown), len(want))
	}
	for _, p := range shown {
		if refused := strings.HasPrefix(p.Diff, "refused path: "); refused != (want[p.Path] != "" && p.Path != "big.txt" && p.Path != "docs/panic.go") {
			t.Errorf("%s: the arbiter saw the diff %q", p.Path, clip(p.Diff, 120))
		}
	}
	snap, err := o.Snapshot(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if len(snap.Proposals) != len(want) {
		t.Fatalf("snapshot proposals = %+v", snap.Proposals)
	}
	for _, p := range snap.Proposals {
		reason := want[p.Path]
		switch {
		case reason == "" && (p.Action != ActionApprove || !p.Applied):
			t.Errorf("%s: %s applied=%v (%s), want applied", p.Path, p.Action, p.Applied, p.Notes)
		case reason != "" && (p.Action != ActionReject || p.Applied || !strings.Contains(p.Notes, "approved but refused when applied: ") || !strings.Contains(p.Notes, reason)):
			t.Errorf("%s: %s applied=%v notes %q, want refused: %s", p.Path, p.Action, p.Applied, p.Notes, reason)
		}
	}
	tr, err := Transcript(w.repo.StateDir(), st.ID)
	if err != nil {
		t.Fatal(err)
	}
	refused := map[string]bool{}
	for _, ev := range tr {
		if ev.Kind == "applied" && ev.Failed && strings.Contains(ev.Text, want[ev.Path]) {
			refused[ev.Path] = true
		}
	}
	if len(refused) != len(want)-1 {
		t.Errorf("refusals in the transcript: %v, want every proposal but docs/ok.md", refused)
	}
	checkUntouched(t, st, ".env", "notes", "big.txt")
	if b, _ := os.ReadFile(filepath.Join(st.Worktree, ".autarch", "config.yaml")); string(b) != swarmGuardrails {
		t.Errorf("the worktree's .autarch/config.yaml = %q", b)
	}
	if got := gitRun(t, w.work, "rev-list", "--count", head+".."+st.Branch); got != "1" {
		t.Errorf("%s commits on %s, want 1", got, st.Branch)
	}
	if files := gitRun(t, w.work, "show", "--name-only", "--format=", st.Branch); files != "docs/ok.md" {
		t.Errorf("the round's commit touches %q, want docs/ok.md alone", files)
	}
	if got := gitRun(t, st.Worktree, "status", "--porcelain"); got != "" {
		t.Errorf("the worktree is not clean:\n%s", got)
	}
}

// TestSessionWarnsOfRefusedWrites: in the editor, an approved write
// refused when applied is shown as a warning naming the file and why;
// one left unapplied for want of --allow-write is only logged (the
// application session's activity view: app's TestActivity).
func TestSessionWarnsOfRefusedWrites(t *testing.T) {
	var out strings.Builder
	var events []editor.SwarmEvent
	s := NewService(ServiceConfig{UI: &editor.Terminal{Out: &out}, Events: func(ev editor.SwarmEvent) { events = append(events, ev) }})
	s.notify(editor.SwarmEvent{SwarmID: "s1", Kind: "applied", Agent: "mallory", Path: ".env", Failed: true, Refused: true,
		Text: refusedPrefix + `File matches sensitive path pattern ".env"`})
	s.notify(editor.SwarmEvent{SwarmID: "s1", Kind: "applied", Path: "a.md", Failed: true,
		Text: "approved but not applied: the swarm runs without --allow-write"})
	got := out.String()
	want := `autarch warning: Autarch: swarm s1: the approved write of .env was refused: File matches sensitive path pattern ".env"` + "\n"
	if !strings.HasPrefix(got, want) || strings.Count(got, "autarch warning:") != 1 {
		t.Errorf("the editor was told:\n%s\nwant first:\n%s", got, want)
	}
	if len(events) != 2 {
		t.Errorf("%d events reached the sink, want 2", len(events))
	}
}
