package orchestrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

// FanOut runs research as a read-only swarm of explorer sub-agents that
// share their findings through ctx, and consolidates the findings for the
// workflow's Research agent (which puts them into submit_research).
type FanOut struct {
	Repo *git.Repo
	// Connect opens the project's swarm engine; close ends the connection.
	Connect func(ctx context.Context) (open OpenEngine, close func(), err error)
	Model   agent.Model
	// ModelName is the explorers' model ("" lets Model choose).
	ModelName string
	// Explorers is how many sub-agents run (at least 2 to fan out).
	Explorers int
	// Rounds (default 1).
	Rounds int
	Events func(editor.SwarmEvent)
	// Hooks are the project's hooks (trusted configuration only; nil:
	// none), run around the explorers' tool calls (Config.Hooks).
	Hooks *tools.Hooks
	// Guardrails are the project's guardrails (Config.Guardrails).
	Guardrails *tools.Guardrails
	// Tools are the MCP servers' tools by role (Config.Tools).
	Tools func(ctx context.Context, role string) []tools.Tool
}

// maxFindings bounds the consolidated findings given to the Research agent.
const maxFindings = 24000

// Research runs (or, for a key whose swarm finished, reuses) the
// explorers' swarm on task and returns their findings as text. key names
// the research (the workflow's id): a resumed workflow finds its swarm
// and resumes it instead of starting another.
func (f FanOut) Research(ctx context.Context, key, task string) (string, error) {
	if f.Explorers < 2 {
		return "", fmt.Errorf("research fan-out needs at least 2 explorers, not %d", f.Explorers)
	}
	open, closeEngine, err := f.Connect(ctx)
	if err != nil {
		return "", fmt.Errorf("research fan-out: the swarm engine: %w", err)
	}
	defer closeEngine()
	o, err := New(Config{Repo: f.Repo, Open: open, Model: f.Model, DefaultModel: f.ModelName,
		Arbiter: func(string) Arbiter { return NewInbox() }, Events: f.Events, Hooks: f.Hooks, Guardrails: f.Guardrails, Tools: f.Tools})
	if err != nil {
		return "", err
	}
	mapping := filepath.Join(Dir(f.Repo.StateDir()), "fanout", keyFile(key))
	id, err := recordedSwarm(mapping)
	if err != nil {
		return "", err
	}
	if id == "" {
		var agents []editor.SwarmAgent
		for i := 1; i <= f.Explorers; i++ {
			agents = append(agents, editor.SwarmAgent{Name: fmt.Sprintf("explorer%d", i), Model: f.ModelName, Role: RoleExplorer})
		}
		st, err := o.Start(ctx, Options{Task: fanOutTask(task, f.Explorers), Agents: agents, Rounds: max(f.Rounds, 1), Arbiter: "none", ReadOnly: true})
		if err != nil {
			return "", err
		}
		if err := writeJSON(mapping, st.ID); err != nil {
			return "", err
		}
		id = st.ID
	}
	st, err := o.Run(ctx, id)
	if err != nil {
		return "", fmt.Errorf("research fan-out (swarm %s): %w", id, err)
	}
	eng, err := open(ctx, st.ID, st.Worktree, Policy{}) // reads the context: no tool call
	if err != nil {
		return "", err
	}
	defer eng.Close()
	entries, err := eng.Context(ctx)
	if err != nil {
		return "", err
	}
	return consolidate(st.Agents, entries), nil
}

// fanOutTask splits the research among the explorers.
func fanOutTask(task string, n int) string {
	return fmt.Sprintf(`Research for this approved scope, as one of %d explorers working in parallel:

%s

Split the work: look first at what the other explorers have not covered (ctx_keys), claim areas with coord_enqueue/coord_next when useful, and share every finding with ctx_put under your name (AgentName.task) in the findings shape. Your findings go to the workflow's research agent.`, n, task)
}

// consolidate is the explorers' findings (their ctx keys), grouped by
// explorer, within maxFindings.
func consolidate(agents []editor.SwarmAgent, entries []editor.SwarmContextEntry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Findings of %d explorer sub-agents (shared context):\n", len(agents))
	sort.Slice(entries, func(i, j int) bool { return entries[i].Key < entries[j].Key })
	found := 0
	for _, a := range agents {
		for _, e := range entries {
			if !strings.HasPrefix(e.Key, a.Name+".") {
				continue
			}
			v, _ := json.Marshal(e.Value)
			line := fmt.Sprintf("- %s: %s\n", e.Key, v)
			if b.Len()+len(line) > maxFindings {
				fmt.Fprintf(&b, "(more findings left out: read them with ctx_get)\n")
				return b.String()
			}
			b.WriteString(line)
			found++
		}
	}
	if found == 0 {
		b.WriteString("(none shared)\n")
	}
	return b.String()
}

// keyFile names the file recording a research's swarm.
func keyFile(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:8]) + ".json"
}

// recordedSwarm is the swarm id recorded at path ("" when none).
func recordedSwarm(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("research fan-out: %w", err)
	}
	var id string
	if json.Unmarshal(b, &id) != nil || !validID().MatchString(id) {
		return "", nil // damaged: start a new swarm
	}
	return id, nil
}
