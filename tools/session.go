package tools

import (
	"github.com/autarch-dev/autarch/editor"
)

// Mode is the confirmation policy of a session.
type Mode string

// Confirmation modes (spec/tool-engine.md).
const (
	ModeYolo             Mode = "yolo"
	ModeConfirmSensitive Mode = "confirm-sensitive"
	ModeConfirmAll       Mode = "confirm-all"
)

// SessionConfig configures one agent session's tool use.
type SessionConfig struct {
	// Root is the workspace or worktree directory every path is confined to.
	Root string
	// Role is the agent role ("discussion", "scoping", "research", "plan",
	// "preflight", "pulsing", "review"); it selects tool variants.
	Role string
	// Mode is the confirmation policy; DryRun records writes instead of doing them.
	Mode   Mode
	DryRun bool
	// Editor is where confirmations are asked; nil means no one can be asked.
	Editor editor.Client
	// Search backs semantic_search; nil means the project is not indexed.
	Search Searcher
}

// Session is the per-agent-session state shared by tool calls: files read
// (read-before-edit), notes, dry-run records, "always allow" answers.
type Session struct {
	cfg SessionConfig
}

// NewSession starts a session.
func NewSession(cfg SessionConfig) (*Session, error) {
	return &Session{cfg: cfg}, nil
}
