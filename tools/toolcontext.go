package tools

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/autarch-dev/autarch/workspace"
)

// ToolContext is coding-team-tools.md's execution context: who a call
// works for. A job's session carries it (SessionConfig.Context); the
// engine gives it to every tool (ToolContextFrom, Session.Config), every
// hook (AUTARCH_JOB, AUTARCH_TRACE, AUTARCH_MODE, AUTARCH_REPO) and every
// log line of the call. The zero value is a session outside any job.
type ToolContext struct {
	JobID   string
	TraceID string
	// Mode is the job's mode ("mechanic" or "genius").
	Mode string
	// RepoPath is the repository root the job works on (its worktree).
	RepoPath string
	// LogEvent records an event of the job (nil: events are only logged).
	LogEvent func(ctx context.Context, event ToolEvent) error
}

// ToolEvent is an event a tool reports through ToolContext.LogEvent.
type ToolEvent struct {
	Tool string         `json:"tool"`
	Kind string         `json:"kind"`
	Data map[string]any `json:"data,omitempty"`
}

// WithToolContext returns ctx carrying tc for the calls and hooks under it.
func WithToolContext(ctx context.Context, tc ToolContext) context.Context {
	return withValue(ctx, tc)
}

// ToolContextFrom is the ToolContext ctx carries (zero when none).
func ToolContextFrom(ctx context.Context) ToolContext {
	return valueFrom[ToolContext](ctx)
}

// Event reports an event through LogEvent (when set); a failure to record
// it is returned.
func (tc ToolContext) Event(ctx context.Context, e ToolEvent) error {
	if tc.LogEvent == nil {
		return nil
	}
	return tc.LogEvent(ctx, e)
}

// attrs are the log attributes of a call made under tc (none outside a job).
func (tc ToolContext) attrs() []any {
	if tc.JobID == "" && tc.TraceID == "" {
		return nil
	}
	return []any{slog.String("job", tc.JobID), slog.String("trace", tc.TraceID), slog.String("mode", tc.Mode)}
}

// hookEnv is what hooks are told of tc.
func (tc ToolContext) hookEnv() []string {
	if tc.JobID == "" {
		return nil
	}
	return []string{"AUTARCH_JOB=" + tc.JobID, "AUTARCH_TRACE=" + tc.TraceID, "AUTARCH_MODE=" + tc.Mode, "AUTARCH_REPO=" + tc.RepoPath}
}

// Cost is a tool's cost hint and typical duration (coding-team-tools.md,
// "Tool Costs"): told to the model in the tool's description and shown by
// autarch tools.
type Cost struct {
	// Hint is "cheap", "moderate" or "expensive".
	Hint string `json:"hint"`
	// Typical is the typical duration, e.g. "100-300ms".
	Typical string `json:"typical"`
}

// String is the sentence appended to a description.
func (c Cost) String() string {
	return "Cost: " + c.Hint + " (typically " + c.Typical + ")."
}

// Coster is implemented by tools that state their cost.
type Coster interface {
	Cost() Cost
}

// specCosts is the spec's table for tools that do not state their own.
var specCosts = map[string]Cost{
	"read_file":       {"cheap", "10-50ms"},
	"search_code":     {"moderate", "100-500ms"},
	"list_files":      {"cheap", "50-100ms"},
	"get_repo_state":  {"cheap", "100-200ms"},
	"create_branch":   {"cheap", "100-300ms"},
	"apply_patch":     {"moderate", "200-500ms"},
	"run_tests":       {"expensive", "5-60s"},
	"run_lint":        {"moderate", "1-10s"},
	"commit_changes":  {"cheap", "200-500ms"},
	"semantic_search": {"expensive", "1-5s"},
	"web_search":      {"expensive", "1-3s"},
}

// CostOf is t's cost: its own (Coster), else the spec's table's entry for
// its name; ok false when neither has one.
func CostOf(t Tool) (Cost, bool) {
	if c, ok := t.(Coster); ok {
		return c.Cost(), true
	}
	c, ok := specCosts[t.Name()]
	return c, ok
}

// WithCost wraps t so that its description ends with its cost (CostOf)
// and it states that cost; a tool without one is returned as is.
func WithCost(t Tool) Tool {
	c, ok := CostOf(t)
	if !ok {
		return t
	}
	return costed{Tool: t, cost: c}
}

type costed struct {
	Tool
	cost Cost
}

// CostDescribed reports whether t's description already ends with its
// cost (t is WithCost's).
func CostDescribed(t Tool) bool {
	_, ok := t.(costed)
	return ok
}

func (c costed) Cost() Cost { return c.cost }

func (c costed) Description() string {
	return c.Tool.Description() + "\n" + c.cost.String() + "\n"
}

// Validate keeps the wrapped tool's schema check.
func (c costed) Validate(args json.RawMessage) error {
	if v, ok := c.Tool.(validator); ok {
		return v.Validate(args)
	}
	return nil
}

// NewMatcher compiles a search_code/grep pattern (Go regexp syntax) for
// Search.
func NewMatcher(pattern string, caseSensitive bool) (*Matcher, error) {
	return newMatcher(pattern, caseSensitive)
}

// Gate is the session's secret gate (sensitive paths and contents).
func (s *Session) Gate() *workspace.Gate { return s.gate }

// Ignore is the session's ignore rules (.gitignore and the built-in ones).
func (s *Session) Ignore() *workspace.Ignore { return s.ignore }

// ReadText reads a file for the model as read_file does: the path
// confined and cleaned, the gate's verdict applied; ok false means res is
// the answer ("File not found: …", a directory, too large, blocked).
func (s *Session) ReadText(p string) (rel string, data []byte, res Result, ok bool) {
	if rel, res, ok = s.resolve(p); !ok {
		return "", nil, res, false
	}
	data, res, ok = s.readBytes(rel, p)
	if ok {
		s.MarkRead(rel)
	}
	return rel, data, res, ok
}

// WriteRefused says why a write to rel is refused by the protected paths
// (.git, .autarch, .mcp.json, the session's Protected globs and those of
// its engine's guardrails as they are now, judged on the path as written
// and where it leads) or the secret gate's sensitive paths; "" when it may
// be written.
func (s *Session) WriteRefused(rel string) string {
	if msg := (rules{protected: s.protectedGlobs()}).checkProtected(s, rel); msg != "" {
		return msg
	}
	if reason, blocked := s.gate.PathBlocked(rel); blocked {
		return reason
	}
	return ""
}

// FillLines fills in the Line of matches Search found (each file read
// again and judged by the gate again).
func FillLines(root *workspace.Root, gate *workspace.Gate, page []GrepMatch) {
	fillLines(root, gate, page)
}
