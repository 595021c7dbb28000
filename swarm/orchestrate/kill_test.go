package orchestrate

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// The helper process of TestKillMidRound runs the swarm named in its
// environment until it is killed.
const (
	envKillRepo  = "SWARM_TEST_REPO"
	envKillSwarm = "SWARM_TEST_ID"
	envKillURLs  = "SWARM_TEST_URLS" // explorer=URL,critic=URL
)

var killAgents = []editor.SwarmAgent{{Name: "explorer", Role: RoleExplorer}, {Name: "critic", Role: RoleCritic}}

func TestKillHelper(t *testing.T) {
	repoDir := os.Getenv(envKillRepo)
	if repoDir == "" {
		t.Skip("the helper process of TestKillMidRound")
	}
	repo, open := openProject(t, repoDir)
	w := &world{t: t, work: repoDir, repo: repo, open: open}
	models := map[string]agent.Model{}
	for _, kv := range strings.Split(os.Getenv(envKillURLs), ",") {
		name, url, _ := strings.Cut(kv, "=")
		models[name] = openai.New(openai.Config{BaseURL: url})
	}
	o := w.newOrchestrator(Config{Models: models, Concurrency: 1, Arbiter: func(string) Arbiter { return NewInbox() }})
	o.Run(context.Background(), os.Getenv(envKillSwarm)) // killed before it ends
}

// TestKillMidRound: a process running a swarm is killed mid-round; the
// swarm resumes in another process with nothing lost or done twice.
func TestKillMidRound(t *testing.T) {
	w := newWorld(t, "kill-resume")
	ctx := context.Background()
	o := w.orchestrator(killAgents, "arbiter")
	st := startSwarm(t, o, Options{Task: "document the layout", Agents: killAgents, Rounds: 1, Arbiter: "arbiter-model", AllowWrite: true})
	child := exec.Command(os.Args[0], "-test.run=^TestKillHelper$", "-test.v")
	child.Env = append(os.Environ(), envKillRepo+"="+w.work, envKillSwarm+"="+st.ID,
		envKillURLs+"=explorer="+w.urls["explorer"]+",critic="+w.urls["critic"])
	var out strings.Builder
	child.Stdout, child.Stderr = &out, &out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	// The critic's conversation is written before its model call, which
	// the script holds for 2 s: kill the process during it (its first
	// step is taken as its request arrives).
	critic := filepath.Join(Dir(w.repo.StateDir()), st.ID, "agents", "critic.json")
	testkit.CheckForChild(t, child, &out, 20*time.Second, 20*time.Millisecond, func() error {
		if _, err := os.Stat(critic); err != nil {
			return fmt.Errorf("the helper never reached the critic's turn: %w", err)
		}
		if n := w.models["critic"].Remaining(); n > 2 {
			return fmt.Errorf("the critic's model call has not arrived (%d steps left)", n)
		}
		return nil
	})
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	child.Wait()

	mid, err := o.Load(st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if mid.Status != StatusRunning || mid.Turn != 1 || mid.Stage != stageAgents {
		t.Fatalf("after the kill: %s, stage %s, turn %d (want running, agents, 1: the explorer done)\n%s", mid.Status, mid.Stage, mid.Turn, out.String())
	}

	list, err := List(w.repo.StateDir())
	if err != nil || len(list) != 1 || list[0].Status != StatusStopped || !strings.Contains(list[0].Reason, "interrupted") {
		t.Errorf("a killed swarm is listed as %+v (%v), want stopped (interrupted)", list, err)
	}

	// Another process (a new orchestrator) resumes: the lock of the dead
	// process is gone.
	st, err = w.orchestrator(killAgents, "arbiter").Run(ctx, st.ID)
	if err != nil || st.Status != StatusDone {
		t.Fatalf("resume: %v (%s: %s)", err, st.Status, st.Reason)
	}
	got := map[string]string{}
	for _, p := range st.Proposals {
		got[p.Path] = p.Agent + ":" + p.Action
	}
	if len(st.Proposals) != 2 || got["docs/layout.md"] != "explorer:approve" || got["CHANGELOG.md"] != "critic:reject" {
		t.Errorf("proposals after resume: %+v", st.Proposals)
	}
	if content, _ := fileIn(t, st.Worktree, "docs/layout.md"); content != "main.go is the entry point.\n" {
		t.Errorf("docs/layout.md = %q", content)
	}
	conv, err := (&store{dir: filepath.Join(Dir(w.repo.StateDir()), st.ID)}).loadConversation("critic")
	if err != nil {
		t.Fatal(err)
	}
	rounds := 0
	for _, m := range conv {
		if m.Role == agent.RoleUser && strings.HasPrefix(m.Content, roundMarker(1)) {
			rounds++
		}
	}
	if rounds != 1 {
		t.Errorf("the critic's round message appears %d times", rounds)
	}
}
