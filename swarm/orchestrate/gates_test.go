package orchestrate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
)

// goProject commits go.mod and the given files on the world's branch (the
// swarm's base), with the project's configuration naming a quality gate
// command, which an untrusted project's gates must ignore.
func goProject(t *testing.T, w *world, files map[string]string) {
	t.Helper()
	files["go.mod"] = "module example.com/app\n\ngo 1.21\n"
	files[".autarch/config.yaml"] = "guardrails:\n  quality_gates:\n    commands: {build: \"touch pwned\"}\n"
	for name, content := range files {
		p := filepath.Join(w.work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		gitRun(t, w.work, "add", name)
	}
	gitRun(t, w.work, "commit", "-q", "-m", "go project")
}

func gateEvents(evs []editor.SwarmEvent) []editor.SwarmEvent {
	var out []editor.SwarmEvent
	for _, ev := range evs {
		if ev.Kind == "gates" {
			out = append(out, ev)
		}
	}
	return out
}

func runGated(t *testing.T, w *world, rounds int) *State {
	t.Helper()
	agents, err := ParseAgents([]string{"coder"})
	if err != nil {
		t.Fatal(err)
	}
	st := runToDone(t, w.orchestrator(agents, "arbiter"), Options{Task: "add code", Agents: agents, Rounds: rounds, Arbiter: "arbiter-model", AllowWrite: true})
	if _, pwned := fileIn(t, st.Worktree, "pwned"); pwned {
		t.Error("the untrusted project's gate command ran")
	}
	return st
}

func TestSwarmGatesBreakingWrite(t *testing.T) {
	w := newWorld(t, "gates-break")
	goProject(t, w, map[string]string{})
	st := runGated(t, w, 2)

	if len(st.Commits) != 1 || st.GatesCommit != st.Commits[0] || st.GatesRound != 1 {
		t.Fatalf("commits %v, gates of %s (round %d)", st.Commits, st.GatesCommit, st.GatesRound)
	}
	failing := st.FailingGates()
	if len(failing) == 0 || !strings.HasPrefix(failing[0], "build (go build") {
		t.Fatalf("failing gates = %q; gates %+v", failing, st.Gates)
	}
	for _, want := range []string{"fails its quality gates", "build (go build", st.Branch, "--base " + st.Branch} {
		if !strings.Contains(st.Reason, want) {
			t.Errorf("reason %q lacks %q", st.Reason, want)
		}
	}
	evs := gateEvents(w.events)
	if len(evs) != 2 || evs[0].Failed || !evs[1].Failed || !strings.Contains(evs[1].Text, "cannot use \"forty-two\"") {
		t.Fatalf("gate events = %+v", evs)
	}
	last := w.events[len(w.events)-1]
	if last.Kind != "status" || last.Status != StatusDone || !last.Failed || !strings.Contains(last.Text, "fails its quality gates") {
		t.Errorf("final event = %+v", last)
	}
	// The transcript and the state on disk keep the run.
	tr, err := Transcript(w.repo.StateDir(), st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(gateEvents(tr)) != 2 {
		t.Errorf("transcript gate events = %+v", gateEvents(tr))
	}
	saved, err := (&Orchestrator{cfg: Config{Repo: w.repo}}).Load(st.ID)
	if err != nil || saved.Gates == nil || !saved.Gates.Failed() || saved.Reason != st.Reason {
		t.Errorf("saved state: %v, %+v", err, saved)
	}
	for name, srv := range w.models {
		if errs, n := srv.Errors(), srv.Remaining(); len(errs) > 0 || n != 0 {
			t.Errorf("%s: %d step(s) left, errors %v", name, n, errs)
		}
	}
}

func TestSwarmGatesValidWrite(t *testing.T) {
	for _, tc := range []struct {
		name      string
		base      map[string]string
		baselines bool
	}{
		{"clean base", map[string]string{}, false},
		{"base failing already", map[string]string{"old.go": "package main\n\nvar old int = \"pre-existing\"\n"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, "gates-pass")
			goProject(t, w, tc.base)
			st := runGated(t, w, 1)

			if len(st.Commits) != 1 || st.Gates == nil || st.GatesCommit != st.Commits[0] {
				t.Fatalf("commits %v, gates %+v of %s", st.Commits, st.Gates, st.GatesCommit)
			}
			if st.Gates.Failed() || len(st.Gates.Reports) == 0 || st.Reason != "" || len(st.FailingGates()) != 0 {
				t.Fatalf("gates %+v, reason %q", st.Gates, st.Reason)
			}
			if !st.Baselined || (len(st.Baselines) > 0) != tc.baselines {
				t.Errorf("baselines %+v (taken %v)", st.Baselines, st.Baselined)
			}
			if tc.baselines {
				pre := 0
				for _, r := range st.Gates.Reports {
					pre += len(r.PreExistingFailures) + len(r.PreExistingIssues)
				}
				if pre == 0 {
					t.Errorf("the base's failure is not reported pre-existing: %+v", st.Gates.Reports)
				}
			}
			evs := gateEvents(w.events)
			if len(evs) != 2 || evs[0].Failed || evs[1].Failed {
				t.Fatalf("gate events = %+v", evs)
			}
			for name, srv := range w.models {
				if errs, n := srv.Errors(), srv.Remaining(); len(errs) > 0 || n != 0 {
					t.Errorf("%s: %d step(s) left, errors %v", name, n, errs)
				}
			}
		})
	}
}

// TestSwarmGatesTreeHeld: a test the gates run rewrites a file of the
// commit they test (after it was compiled): the gates fail naming it,
// where the tests alone pass.
func TestSwarmGatesTreeHeld(t *testing.T) {
	w := newWorld(t, "gates-tree")
	goProject(t, w, map[string]string{})
	st := runGated(t, w, 1)

	if len(st.Commits) != 1 || st.Gates == nil || st.GatesCommit != st.Commits[0] {
		t.Fatalf("commits %v, gates %+v of %s", st.Commits, st.Gates, st.GatesCommit)
	}
	failing := st.FailingGates()
	if !slices.ContainsFunc(failing, func(f string) bool { return strings.Contains(f, tools.CheckTree) }) {
		t.Fatalf("failing gates = %q; gates %+v", failing, st.Gates)
	}
	evs := gateEvents(w.events)
	if len(evs) != 2 || !evs[1].Failed || !strings.Contains(evs[1].Text, "hello.go changed while the quality gates ran") {
		t.Fatalf("gate events = %+v", evs)
	}
}
