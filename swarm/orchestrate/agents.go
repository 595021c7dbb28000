package orchestrate

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/autarch-dev/autarch/editor"
)

// Roles of swarm agents: an agent named like a role gets its prompt; any
// other name gets the explorer's.
const (
	RoleExplorer = "explorer"
	RoleTester   = "tester"
	RoleCritic   = "critic"
)

// DefaultAgents are the agents of a swarm started without --agents: the
// default model in three roles.
var defaultAgents = []string{RoleExplorer, RoleTester, RoleCritic}

var rolePrompts = map[string]string{
	RoleExplorer: "You are the explorer of a swarm of agents. Map the code the task concerns: list, read and search files, and share what you learn as findings in the shared context so the others need not repeat it.",
	RoleTester:   "You are the tester of a swarm of agents. Work out how the task's result will be verified: find the tests, what they cover and what is missing, and share that as findings. Propose test changes as full file contents.",
	RoleCritic:   "You are the critic of a swarm of agents. Read the others' findings (ctx_keys, then ctx_get) and the code they point at; share the risks, mistakes and simpler alternatives you find. Propose writes only when they fix something concrete.",
}

// agentName is what a swarm agent may be called: it is the scope of its
// rate limits and the prefix of its findings' keys.
var agentName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,31}$`) })

// ParseAgents reads --agents items "NAME=MODEL" ("NAME" or "NAME=" for the
// default model; a "@envelope" suffix on MODEL selects the JSON envelope
// for a model without native tool calling). No items: explorer, tester and
// critic on the default model.
func ParseAgents(items []string) ([]editor.SwarmAgent, error) {
	if len(items) == 0 {
		items = defaultAgents
	}
	var out []editor.SwarmAgent
	seen := map[string]bool{}
	for _, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			continue
		}
		name, model, _ := strings.Cut(it, "=")
		name, model = strings.TrimSpace(name), strings.TrimSpace(model)
		if !agentName().MatchString(name) {
			return nil, fmt.Errorf("agent %q: a name is a letter then up to 31 letters, digits, '-' or '_' (e.g. explorer=gpt-4o)", name)
		}
		if seen[strings.ToLower(name)] {
			return nil, fmt.Errorf("agent %q is named twice: give every agent its own name", name)
		}
		seen[strings.ToLower(name)] = true
		a := editor.SwarmAgent{Name: name, Model: model, Role: roleOf(name)}
		if m, ok := strings.CutSuffix(model, "@envelope"); ok {
			a.Model, a.Envelope = m, true
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no agents: give --agents NAME=MODEL,… (e.g. explorer=,critic=gpt-4o)")
	}
	return out, nil
}

// roleOf is the role an agent's name selects.
func roleOf(name string) string {
	if _, ok := rolePrompts[strings.ToLower(name)]; ok {
		return strings.ToLower(name)
	}
	return RoleExplorer
}

// systemPrompt is an agent's system message: its role and the conventions
// of spec/swarm-tools.md (the agent loop adds how a model without native
// tool calling calls tools: the JSON envelope).
func systemPrompt(a editor.SwarmAgent, readOnly bool) string {
	var b strings.Builder
	b.WriteString(rolePrompts[a.Role])
	fmt.Fprintf(&b, "\nYour agent name is %s.\n", a.Name)
	b.WriteString(`Conventions:
- Share findings with ctx_put under the key "` + a.Name + `.<task>" with the value {"ok": true|false, "task": "<task>", "data": <any JSON>, "ts": "<ISO 8601>", "agent": "` + a.Name + `"}.
- Consolidate the others' findings with ctx_keys, then ctx_get. The key "phase" is the current round, set by the orchestrator.
- Work items: coord_enqueue, coord_next (with a lease), coord_extend while working, coord_complete when done.
- Prefer small, targeted reads and searches first. Always include a short free-text rationale with your tool calls.
`)
	if readOnly {
		b.WriteString(`- This is a read-only proposal round: nothing is written. End your turn with an improvement proposal, as JSON:
{"type": "proposal", "items": [{"area": "coordination|observability|safety", "change": "...", "rationale": "..."}]}
`)
	} else {
		b.WriteString(`- Propose writes with fs_write and the FULL file content you want on disk (not a diff), only after consensus; an arbiter approves or rejects each proposal, you learn the decision next round.
`)
	}
	b.WriteString("- When you have nothing more to do this round, answer in text without tool calls.\n")
	return b.String()
}
