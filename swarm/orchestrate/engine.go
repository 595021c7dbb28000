package orchestrate

import (
	"context"
	"encoding/json"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/swarm"
	"github.com/autarch-dev/autarch/tools"
)

// Engine is the swarm engine (package swarm) as the orchestrator uses it:
// its tools, run as a named agent, and the stream of fs_write proposals.
type Engine interface {
	// Call runs a swarm tool (spec/swarm-tools.md) as agent and returns its
	// JSON result, mistakes of the model included ({"error": …}, a call a
	// hook blocked too); an error only when the engine itself is broken.
	Call(ctx context.Context, agent, tool string, args json.RawMessage) (json.RawMessage, error)
	// Schemas are the tools' functions offered to models (without
	// fs_write when readOnly).
	Schemas(readOnly bool) []tools.FunctionSchema
	// Agent is the engine an agent's loop offers the swarm's tools from
	// (without fs_write when readOnly) and fires its model calls' hooks
	// through, and the session on the swarm's worktree its calls run in.
	Agent(agent string, readOnly bool) (*tools.Engine, *tools.Session, error)
	// SetPhase records the round in the shared context ("phase").
	SetPhase(ctx context.Context, phase int) error
	// Context lists the shared context's keys and values.
	Context(ctx context.Context) ([]editor.SwarmContextEntry, error)
	// Proposals returns the fs_write proposals queued and not yet
	// resolved, oldest first.
	Proposals(ctx context.Context) ([]Proposal, error)
	// Resolve records a proposal's decision (and whether it was applied)
	// with the engine, which then no longer lists it; by names the
	// arbiter. A proposal resolved before is not an error.
	Resolve(ctx context.Context, p editor.SwarmProposal, by string) error
	// Close releases what the engine holds for the swarm.
	Close() error
}

// OpenEngine opens the engine of the swarm id, whose file tools read
// worktree; every tool call goes through p: the project's hooks, as the
// agent loop's calls do (pre_tool_use may block a call, post_tool_use sees
// its result), with the HookContext of the ctx given to Call, and its
// guardrails, as the workflow's agents' calls do (protected paths, the
// lines and files a call may change, code rules).
type OpenEngine func(ctx context.Context, id, worktree string, p Policy) (Engine, error)

// Policy is what the agents' tool calls go through (zero: no hooks, only
// the built-in protections: .git, .autarch, the secret gate).
type Policy struct {
	// Hooks are the project's hooks (trusted configuration only).
	Hooks *tools.Hooks
	// Guardrails are the project's guardrails (config.yaml guardrails:).
	Guardrails *tools.Guardrails
	// Egress is the secret filter of the agents' model requests and
	// events (nil: the worktree session's own).
	Egress *tools.Egress
	// Tools are MCP servers' tools offered to every agent besides the
	// swarm's (Config.Tools); only read-only ones are: an agent's one way
	// to change anything is an fs_write proposal the arbiter decides.
	Tools []tools.Tool
}

// QueueLister is an Engine that lists its queue's items with their leases
// and holders (the side panel's queue view).
type QueueLister interface {
	Queue(ctx context.Context) ([]editor.SwarmQueueItem, error)
}

// Proposal is one fs_write an agent proposed: the full content it wants at
// Path (relative to the swarm's worktree).
type Proposal = swarm.Proposal

// The spec's tools the orchestrator names.
const (
	toolFsWrite = "fs_write"
	toolCtxPut  = "ctx_put"
)

// isWrite reports the tool a read-only proposal round does not offer.
func isWrite(tool string) bool { return tool == toolFsWrite }
