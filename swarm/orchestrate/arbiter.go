package orchestrate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/swarm"
	"github.com/autarch-dev/autarch/tools"
)

// Decision actions (the engine's).
const (
	ActionApprove = swarm.Approve
	ActionReject  = swarm.Reject
)

// Decision is the arbiter's answer about one proposal.
type Decision struct {
	Path   string `json:"path"`
	Action string `json:"action"`
	Notes  string `json:"notes"`
}

// Arbiter decides a round's pending proposals: one decision per proposal,
// keyed by the proposal's id. An arbiter deciding one proposal at a time
// (a human) tells record each decision as it is made, so that a process
// killed midway keeps the answers given.
type Arbiter interface {
	Decide(ctx context.Context, swarmID string, round int, pending []editor.SwarmProposal, record Record) (map[string]Decision, error)
}

// Record keeps one decision at once (it fails only when it cannot be saved).
type Record func(proposalID string, d Decision) error

// ErrMalformed means the arbiter model answered twice with something that
// is not the STRICT JSON decisions: nothing was written.
var ErrMalformed = errors.New("the arbiter did not answer with the STRICT JSON decisions")

// ParseDecisions reads the arbiter's STRICT JSON answer,
// {"decisions": [{"path", "action", "notes"}]}: exactly one JSON object
// (whitespace around it only), no other fields, one decision per pending
// proposal's path, action "approve" or "reject". It returns the decisions
// by proposal id.
func ParseDecisions(text string, pending []editor.SwarmProposal) (map[string]Decision, error) {
	var answer struct {
		Decisions *[]Decision `json:"decisions"`
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&answer); err != nil {
		return nil, fmt.Errorf("not STRICT JSON (%v): answer with only {\"decisions\": [{\"path\": …, \"action\": \"approve\"|\"reject\", \"notes\": …}]}, no prose or code fence", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the JSON object: answer with the JSON object alone")
	}
	if answer.Decisions == nil {
		return nil, errors.New(`no "decisions" list: answer {"decisions": [...]}`)
	}
	byPath := map[string]string{}
	var paths []string
	for _, p := range pending {
		byPath[p.Path] = p.ID
		paths = append(paths, p.Path)
	}
	out := map[string]Decision{}
	for _, d := range *answer.Decisions {
		id, ok := byPath[d.Path]
		switch {
		case !ok:
			return nil, fmt.Errorf("a decision about %q, which no pending proposal writes (pending: %s)", d.Path, strings.Join(paths, ", "))
		case d.Action != ActionApprove && d.Action != ActionReject:
			return nil, fmt.Errorf("action %q for %q: use \"approve\" or \"reject\"", d.Action, d.Path)
		}
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("%q is decided twice: give one decision per path", d.Path)
		}
		out[id] = d
	}
	for _, p := range pending {
		if _, ok := out[p.ID]; !ok {
			return nil, fmt.Errorf("no decision for %q: decide every pending proposal", p.Path)
		}
	}
	return out, nil
}

const arbiterPrompt = `You are the arbiter of a swarm of agents. Agents proposed the file writes below (each the full new content of a file, shown as a diff against the current file). Approve a write only when it is correct, safe and serves the task; reject it otherwise, and say why in notes (the agents read your notes).
Answer with STRICT JSON and nothing else — no prose, no code fence:
{"decisions": [{"path": "<path>", "action": "approve" | "reject", "notes": "<short reason>"}]}
One decision per proposed path.`

// ModelArbiter is an arbiter model answering the STRICT JSON decisions; a
// malformed answer is shown to it with the error and asked once more.
type ModelArbiter struct {
	Model     agent.Model
	ModelName string
	// Log hears of a malformed answer and of failing hooks (nil: dropped).
	Log func(string)
	// Hooks are the project's hooks (trusted configuration only; nil:
	// none): each model call goes through pre_llm_call (which may block
	// it) and post_llm_call, as the agent loop's do.
	Hooks *tools.Hooks
	// Egress filters each request (nil: the orchestrator's, or the line
	// rules and the environment's secrets).
	Egress *tools.Egress
}

// egress is the arbiter's filter: its own, or one over the line rules and
// the environment's secrets.
func (m ModelArbiter) egress(ctx context.Context) *tools.Egress {
	if m.Egress != nil {
		return m.Egress
	}
	return tools.NewEgress(ctx, nil, tools.EgressSources{Environ: os.Environ()})
}

// hookFailed logs the hooks of a model call that failed otherwise.
func (m ModelArbiter) hookFailed(out tools.HookOutcome) {
	if m.Log == nil {
		return
	}
	for _, w := range out.Warnings {
		m.Log("model call hook: " + w)
	}
}

// Decide asks the model, re-asking once after a malformed answer.
func (m ModelArbiter) Decide(ctx context.Context, swarmID string, round int, pending []editor.SwarmProposal, _ Record) (map[string]Decision, error) {
	msgs := []agent.Message{{Role: agent.RoleSystem, Content: arbiterPrompt}, {Role: agent.RoleUser, Content: describeProposals(swarmID, round, pending)}}
	var lastErr error
	for attempt := 1; attempt <= 2; attempt++ {
		resp, err := agent.HookedCall(ctx, m.Hooks, agent.FilterModel(m.Model, m.egress(ctx)), agent.Request{Model: m.ModelName, Messages: msgs}, "arbiter", attempt, nil, m.hookFailed)
		if err != nil {
			return nil, fmt.Errorf("arbiter model call: %w", err)
		}
		answer := resp.Message.Content
		decisions, err := ParseDecisions(answer, pending)
		if err == nil {
			return decisions, nil
		}
		lastErr = err
		if m.Log != nil {
			m.Log(fmt.Sprintf("arbiter answer %d rejected: %v", attempt, err))
		}
		msgs = append(msgs, agent.Message{Role: agent.RoleAssistant, Content: answer},
			agent.Message{Role: agent.RoleUser, Content: "Your answer was rejected: " + err.Error() + ". Answer again with the JSON object alone."})
	}
	return nil, fmt.Errorf("%w (asked twice; last: %v): nothing was written", ErrMalformed, lastErr)
}

// describeProposals is the arbiter's view of the pending proposals.
func describeProposals(swarmID string, round int, pending []editor.SwarmProposal) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Swarm %s, round %d: %d proposed write(s).\n", swarmID, round, len(pending))
	for _, p := range pending {
		fmt.Fprintf(&b, "\n### %s (proposed by %s)\n```diff\n%s```\n", p.Path, p.Agent, p.Diff)
	}
	return b.String()
}

// TerminalArbiter is the human at a terminal: each proposal is shown as a
// diff and answered "a" (approve) or "r" (reject), notes after a space.
type TerminalArbiter struct {
	In  io.Reader
	Out io.Writer
}

// Decide asks about every pending proposal in turn.
func (t TerminalArbiter) Decide(ctx context.Context, swarmID string, round int, pending []editor.SwarmProposal, record Record) (map[string]Decision, error) {
	in := bufio.NewReader(t.In)
	out := map[string]Decision{}
	for _, p := range pending {
		fmt.Fprintf(t.Out, "\n%s proposes to write %s (swarm %s, round %d):\n%s", p.Agent, p.Path, swarmID, round, p.Diff)
		for {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			fmt.Fprintf(t.Out, "approve or reject %s? [a|r] notes: ", p.Path)
			line, err := in.ReadString('\n')
			if err != nil && line == "" {
				return nil, fmt.Errorf("no answer about %s on standard input (%v): resume the swarm in a terminal, or give --arbiter MODEL", p.Path, err)
			}
			word, notes, _ := strings.Cut(strings.TrimSpace(line), " ")
			switch arbiterDecision(word) {
			case editor.DecisionApprove:
				out[p.ID] = Decision{Path: p.Path, Action: ActionApprove, Notes: strings.TrimSpace(notes)}
			case editor.DecisionReject:
				out[p.ID] = Decision{Path: p.Path, Action: ActionReject, Notes: strings.TrimSpace(notes)}
			default:
				fmt.Fprintf(t.Out, "%q is not an answer: type a (approve) or r (reject), then optional notes\n", word)
				continue
			}
			if record != nil {
				if err := record(p.ID, out[p.ID]); err != nil {
					return nil, err
				}
			}
			break
		}
	}
	return out, nil
}

// arbiterDecision reads the first word of a terminal arbiter's answer
// with the one answer parser (editor.ParseDecision: approve, y, yes, ok, …
// or reject, r, n, no; an arbiter offers neither always nor abort), and
// "a", the approve key the arbiter's own prompt shows ([a|r]); "" for no
// decision.
func arbiterDecision(word string) editor.Decision {
	if strings.EqualFold(word, "a") {
		return editor.DecisionApprove
	}
	d, _ := editor.ParseDecision(word, editor.Approval{})
	return d
}

// Inbox is a human arbiter answering from elsewhere (the editor's side
// panel): Decide waits until every pending proposal has an Answer.
type Inbox struct {
	mu      sync.Mutex
	answers map[string]Decision
	changed chan struct{}
}

// NewInbox makes an empty inbox.
func NewInbox() *Inbox { return &Inbox{answers: map[string]Decision{}, changed: make(chan struct{})} }

// Answer records the human's decision about proposal id.
func (i *Inbox) Answer(id, action, notes string) error {
	if action != ActionApprove && action != ActionReject {
		return fmt.Errorf("action %q: use \"approve\" or \"reject\"", action)
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	i.answers[id] = Decision{Action: action, Notes: notes}
	close(i.changed)
	i.changed = make(chan struct{})
	return nil
}

// Decide waits for an answer about every pending proposal (or ctx's end).
func (i *Inbox) Decide(ctx context.Context, _ string, _ int, pending []editor.SwarmProposal, record Record) (map[string]Decision, error) {
	recorded := map[string]bool{}
	for {
		i.mu.Lock()
		out, missing := map[string]Decision{}, 0
		for _, p := range pending {
			if d, ok := i.answers[p.ID]; ok {
				d.Path = p.Path
				out[p.ID] = d
			} else {
				missing++
			}
		}
		changed := i.changed
		i.mu.Unlock()
		for _, p := range pending {
			if d, ok := out[p.ID]; ok && !recorded[p.ID] && record != nil {
				if err := record(p.ID, d); err != nil {
					return nil, err
				}
				recorded[p.ID] = true
			}
		}
		if missing == 0 {
			return out, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-changed:
		}
	}
}

// trimJSON is text with a fenced or surrounding JSON object reduced to the
// object (improvement proposals are read leniently; decisions are not).
func trimJSON(text string) []byte {
	i, j := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}')
	if i < 0 || j < i {
		return nil
	}
	return bytes.TrimSpace([]byte(text[i : j+1]))
}
