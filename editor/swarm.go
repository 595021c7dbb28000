package editor

// Swarm protocol (issue 21): several agents on one task with shared
// context, a leased work queue and arbiter-approved writes in the swarm's
// own worktree. These declarations join lspext.go's in the generated
// TypeScript (vscode-extension/src/lspext.gen.ts).

// Swarm commands (workspace/executeCommand with one object argument) and
// methods.
const (
	// CommandStartSwarm (StartSwarmParams) starts a swarm in the
	// background and returns its SwarmRef; progress arrives as SwarmEvent
	// notifications.
	CommandStartSwarm = "autarch.startSwarm"
	// CommandStopSwarm (SwarmRef) stops a running swarm; it can be resumed.
	CommandStopSwarm = "autarch.stopSwarm"
	// CommandResumeSwarm (SwarmRef) resumes a stopped or failed swarm in
	// the background from where it stopped.
	CommandResumeSwarm = "autarch.resumeSwarm"
	// CommandDecideSwarmProposal (SwarmDecisionParams) answers one
	// proposal awaiting a human arbiter.
	CommandDecideSwarmProposal = "autarch.decideSwarmProposal"
	// MethodSwarms (client → server request, params {}) returns
	// []SwarmSnapshot, most recently updated first.
	MethodSwarms = "autarch/swarms"
	// MethodSwarmEvent (server → client notification) carries a SwarmEvent.
	MethodSwarmEvent = "autarch/swarmEvent"
)

// StartSwarmParams start a swarm. Agents are NAME=MODEL items (MODEL may be
// empty for the default model; NAME explorer, tester or critic picks that
// role's prompt); Arbiter is a model name or "human" (the default: the
// editor asks). ReadOnly runs proposal rounds: no fs_write, improvement
// proposals instead.
type StartSwarmParams struct {
	Task       string   `json:"task"`
	Agents     []string `json:"agents,omitempty"`
	Rounds     int      `json:"rounds,omitempty"`
	Arbiter    string   `json:"arbiter,omitempty"`
	AllowWrite bool     `json:"allowWrite,omitempty"`
	ReadOnly   bool     `json:"readOnly,omitempty"`
}

// SwarmRef names a swarm.
type SwarmRef struct {
	SwarmID string `json:"swarmId"`
}

// SwarmDecisionParams answer one proposal: Action is "approve" or "reject".
type SwarmDecisionParams struct {
	SwarmID    string `json:"swarmId"`
	ProposalID string `json:"proposalId"`
	Action     string `json:"action"`
	Notes      string `json:"notes,omitempty"`
}

// SwarmEvent is something a swarm did. Kinds: "status", "round",
// "tool_call", "tool_result", "text", "proposal", "awaiting" (proposals
// wait for the arbiter Agent names: "human" or a model), "decision",
// "applied", "commit", "gates" (the quality gates' run on the swarm's
// branch; Failed when they fail), "rate_limited", "improvement", "error".
type SwarmEvent struct {
	Kind    string `json:"kind"`
	SwarmID string `json:"swarmId"`
	Round   int    `json:"round,omitempty"`
	Agent   string `json:"agent,omitempty"`
	Tool    string `json:"tool,omitempty"`
	Path    string `json:"path,omitempty"`
	// Action is a decision's "approve" or "reject".
	Action string `json:"action,omitempty"`
	// Status is the swarm's status (kind "status").
	Status string `json:"status,omitempty"`
	Text   string `json:"text,omitempty"`
	Failed bool   `json:"failed,omitempty"`
	// Refused marks an "applied" event of an approved write the swarm's
	// rules refused (Failed is set too).
	Refused bool `json:"refused,omitempty"`
}

// SwarmAgent is one agent of a swarm.
type SwarmAgent struct {
	Name     string `json:"name"`
	Model    string `json:"model,omitempty"`
	Role     string `json:"role"`
	Envelope bool   `json:"envelope,omitempty"`
}

// SwarmProposal is one fs_write proposal: Diff is the unified diff of the
// swarm's worktree file to Content. Action is "" while it awaits the
// arbiter.
type SwarmProposal struct {
	ID      string `json:"id"`
	Agent   string `json:"agent"`
	Round   int    `json:"round"`
	Path    string `json:"path"`
	Content string `json:"content"`
	Diff    string `json:"diff"`
	Action  string `json:"action,omitempty"`
	Notes   string `json:"notes,omitempty"`
	Applied bool   `json:"applied,omitempty"`
}

// SwarmContextEntry is one key of the swarm's shared context.
type SwarmContextEntry struct {
	Key     string `json:"key"`
	Value   any    `json:"value"`
	Version int64  `json:"version"`
}

// SwarmQueueItem is one work item of the swarm's queue; Holder and
// LeaseUntil are set while it is claimed.
type SwarmQueueItem struct {
	ID         string `json:"id"`
	Kind       string `json:"kind"`
	Status     string `json:"status"`
	Holder     string `json:"holder,omitempty"`
	LeaseUntil string `json:"leaseUntil,omitempty"`
}

// SwarmRateLimitHit is one call a rate limit refused.
type SwarmRateLimitHit struct {
	Agent    string `json:"agent"`
	Tool     string `json:"tool"`
	Round    int    `json:"round"`
	ResetSec int    `json:"resetSec"`
}

// SwarmSnapshot is a swarm as the side panel and autarch status show it.
type SwarmSnapshot struct {
	ID         string              `json:"id"`
	Task       string              `json:"task"`
	Status     string              `json:"status"`
	Reason     string              `json:"reason,omitempty"`
	Round      int                 `json:"round"`
	Rounds     int                 `json:"rounds"`
	Phase      int                 `json:"phase"`
	Stage      string              `json:"stage"`
	Arbiter    string              `json:"arbiter"`
	AllowWrite bool                `json:"allowWrite"`
	ReadOnly   bool                `json:"readOnly,omitempty"`
	Branch     string              `json:"branch"`
	Worktree   string              `json:"worktree"`
	Agents     []SwarmAgent        `json:"agents"`
	Context    []SwarmContextEntry `json:"context"`
	Queue      []SwarmQueueItem    `json:"queue"`
	Proposals  []SwarmProposal     `json:"proposals"`
	RateLimits []SwarmRateLimitHit `json:"rateLimits"`
	Commits    []string            `json:"commits"`
	UpdatedAt  string              `json:"updatedAt"`
}
