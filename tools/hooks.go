package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/autarch-dev/autarch/workspace/trust"
)

// Hook events (spec/tool-engine.md lifecycle).
const (
	EventPreToolUse      = "pre_tool_use"
	EventPostToolUse     = "post_tool_use"
	EventSessionStart    = "session_start"
	EventSessionEnd      = "session_end"
	EventPreLLMCall      = "pre_llm_call"
	EventPostLLMCall     = "post_llm_call"
	EventError           = "on_error"
	EventBudgetWarning   = "budget_warning"
	EventContextCompress = "context_compress"
	EventAgentComplete   = "agent_complete"
)

// HooksFile is the legacy repository file that configures hooks (JSON),
// read when present but deprecated: hooks belong in ConfigFile.
const HooksFile = trust.HooksFile

// Hook runs a command on an event.
type Hook struct {
	// Name names the hook in its output ([Hook NAME: FAILED (exit N)]);
	// the command when empty.
	Name  string `json:"name,omitempty"`
	Event string `json:"event"`
	// Matcher is a regular expression on the tool name (tool events only).
	Matcher string `json:"matcher,omitempty"`
	// Files are doublestar globs; the hook runs only when the call's path
	// matches one. A pattern without a slash matches the base name.
	Files []string `json:"files,omitempty"`
	// Command runs with bash; {file} is replaced by the call's path, quoted.
	Command string `json:"command"`
	// Timeout in seconds (default 30).
	Timeout int `json:"timeout,omitempty"`

	re *regexp.Regexp
}

// Hooks is the hook runner of one workspace.
type Hooks struct {
	dir string

	mu    sync.RWMutex
	hooks []Hook
}

// Enable replaces the hooks with trusted ones (the user trusted the
// configuration while sessions run).
func (h *Hooks) Enable(trusted *Hooks) {
	trusted.mu.RLock()
	list := slices.Clone(trusted.hooks)
	trusted.mu.RUnlock()
	h.mu.Lock()
	h.hooks = list
	h.mu.Unlock()
}

// active is the current list of hooks.
func (h *Hooks) active() []Hook {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.hooks
}

// LoadHooks reads .autarch/hooks in dir as it is, without asking whether
// the user trusts it; a missing file means no hooks. Sessions load hooks
// with LoadProject, which runs them only from trusted configuration.
func LoadHooks(dir string) (*Hooks, error) {
	data, err := os.ReadFile(filepath.Join(dir, HooksFile))
	if errors.Is(err, os.ErrNotExist) {
		return &Hooks{dir: dir}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", HooksFile, err)
	}
	return ParseHooks(dir, data)
}

// ParseHooks reads the content of a hooks file; dir is where hooks run.
func ParseHooks(dir string, data []byte) (*Hooks, error) {
	h := &Hooks{dir: dir}
	if len(data) == 0 {
		return h, nil
	}
	var cfg struct {
		Hooks []Hook `json:"hooks"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %v (expected {\"hooks\": [{\"event\", \"matcher\", \"files\", \"command\", \"timeout\"}]})", HooksFile, err)
	}
	for i, hk := range cfg.Hooks {
		if hk.Event == "post_edit" {
			hk.Event = EventPostToolUse
			if hk.Matcher == "" {
				hk.Matcher = legacyPostEditMatcher
			}
		}
		if hk.Event == "error" {
			hk.Event = EventError
		}
		if err := hk.compile(); err != nil {
			return nil, fmt.Errorf("%s: hook %d: %w", HooksFile, i, err)
		}
		h.hooks = append(h.hooks, hk)
	}
	return h, nil
}

// NewHooks makes the runner of hooks in dir (compiled by compile).
func NewHooks(dir string, hooks []Hook) (*Hooks, error) {
	h := &Hooks{dir: dir}
	for i, hk := range hooks {
		if err := hk.compile(); err != nil {
			return nil, fmt.Errorf("hook %d: %w", i, err)
		}
		h.hooks = append(h.hooks, hk)
	}
	return h, nil
}

// compile checks the hook and compiles its matcher.
func (hk *Hook) compile() error {
	if hk.Command == "" || hk.Event == "" {
		return errors.New("a hook needs an event and a command")
	}
	if hk.Matcher != "" {
		re, err := regexp.Compile(hk.Matcher)
		if err != nil {
			return fmt.Errorf("matcher: %w", err)
		}
		hk.re = re
	}
	for _, f := range hk.Files {
		if !doublestar.ValidatePattern(f) {
			return fmt.Errorf("invalid file pattern %q", f)
		}
	}
	return nil
}

// label is how output names the hook.
func (hk Hook) label() string {
	if hk.Name != "" {
		return hk.Name
	}
	return hk.Command
}

// Commands lists the hooks' commands (what a user is asked to trust).
func (h *Hooks) Commands() []string {
	if h == nil {
		return nil
	}
	var out []string
	for _, hk := range h.active() {
		out = append(out, hk.Event+": "+hk.Command)
	}
	return out
}

// HookOutcome is what the hooks of one event decided.
type HookOutcome struct {
	// Blocked is set when a hook exited 2; Reason is its stderr and Hook
	// names the hook.
	Blocked bool
	Reason  string
	Hook    string
	// Context is additionalContext (pre) or output (post) to give the model.
	Context []string
	// UpdatedInput replaces the call's arguments (pre hooks only).
	UpdatedInput json.RawMessage
	// Warnings are hooks that failed otherwise; they do not block.
	Warnings []string
}

// Fire runs the hooks of an event. tool and path select matching hooks
// (empty for lifecycle events); payload is given as JSON on stdin.
func (h *Hooks) Fire(ctx context.Context, event, tool, path string, payload any) HookOutcome {
	var out HookOutcome
	if h == nil {
		return out
	}
	input, _ := json.Marshal(map[string]any{"event": event, "tool": tool, "path": path, "payload": payload})
	hc := HookContextFrom(ctx)
	env := []string{"AUTARCH_EVENT=" + event, "AUTARCH_TOOL=" + tool, "AUTARCH_FILE=" + path,
		"AUTARCH_AGENT=" + hc.Agent, "AUTARCH_WORKFLOW=" + hc.Workflow, "AUTARCH_SESSION=" + hc.Session}
	if hc.Swarm != "" {
		env = append(env, "AUTARCH_SWARM="+hc.Swarm)
	}
	env = append(env, ToolContextFrom(ctx).hookEnv()...)
	for _, hk := range h.active() {
		if hk.Event != event || (hk.re != nil && !hk.re.MatchString(tool)) || !hookMatchesFiles(hk.Files, path) {
			continue
		}
		if strings.Contains(hk.Command, "{file}") {
			if path == "" {
				continue // nothing to substitute: the hook is about a file
			}
			hk.Command = strings.ReplaceAll(hk.Command, "{file}", shellQuote(path))
		}
		code, stdout, stderr, err := h.run(ctx, hk, input, env)
		if hc.Report != nil {
			exit := code
			if err != nil {
				exit = -1
			}
			hc.Report(HookRun{Hook: hk.label(), Event: event, Tool: tool, Exit: exit, Blocked: err == nil && code == 2 && canBlock(event)})
		}
		switch {
		case err != nil:
			out.Warnings = append(out.Warnings, fmt.Sprintf("hook %q failed: %v", hk.label(), err))
		case code == 0:
			var resp struct {
				AdditionalContext string          `json:"additionalContext"`
				UpdatedInput      json.RawMessage `json:"updatedInput"`
			}
			trimmed := strings.TrimSpace(stdout)
			if strings.HasPrefix(trimmed, "{") && json.Unmarshal([]byte(trimmed), &resp) == nil {
				if resp.AdditionalContext != "" {
					out.Context = append(out.Context, resp.AdditionalContext)
				}
				if len(resp.UpdatedInput) > 0 && event == EventPreToolUse {
					out.UpdatedInput = resp.UpdatedInput
				}
			} else if trimmed != "" && event == EventPostToolUse {
				out.Context = append(out.Context, trimmed)
			}
		case code == 2 && canBlock(event):
			out.Blocked, out.Hook = true, hk.label()
			out.Reason = strings.TrimSpace(stderr)
			if out.Reason == "" {
				out.Reason = fmt.Sprintf("blocked by hook %q", hk.label())
			}
			return out
		default:
			failed := strings.TrimSpace(fmt.Sprintf("[Hook %s: FAILED (exit %d)]\n%s%s", hk.label(), code, stdout, stderr))
			if event == EventPostToolUse {
				out.Context = append(out.Context, failed)
				continue
			}
			out.Warnings = append(out.Warnings, failed)
		}
	}
	return out
}

// canBlock reports whether a hook of event may block with exit 2: only
// pre-hooks can (spec/tool-engine.md); for a post or notification hook
// exit 2 is a failure like any other non-zero exit, its output kept and
// the event's later hooks run.
func canBlock(event string) bool {
	return event == EventPreToolUse || event == EventPreLLMCall
}

// BlockedMessage is what the model reads of a call a hook blocked:
// spec/tool-engine.md's "Blocked by hook: {reason}", naming the hook when
// the reason does not.
func (o HookOutcome) BlockedMessage() string {
	msg := "Blocked by hook: " + o.Reason
	if o.Hook != "" && !strings.Contains(o.Reason, o.Hook) {
		msg += fmt.Sprintf(" (hook %q)", o.Hook)
	}
	return msg
}

// hookMatchesFiles is matchesFiles where a pattern without a slash (the
// spec's "*.py") also matches the base name.
func hookMatchesFiles(globs []string, path string) bool {
	if path == "" {
		return len(globs) == 0
	}
	for _, g := range slices.Clone(globs) {
		if !strings.Contains(g, "/") {
			globs = append(globs, "**/"+g)
		}
	}
	return matchesFiles(globs, path)
}

// HookContext is who fires hooks: given to them as AUTARCH_AGENT,
// AUTARCH_WORKFLOW and AUTARCH_SESSION, and for a swarm's calls
// AUTARCH_SWARM (the swarm's id; Agent is then the swarm agent's name).
type HookContext struct {
	Agent, Workflow, Session string
	Swarm                    string
	// Report, when set, is told of every hook that ran, for the human log.
	Report func(HookRun)
}

// HookRun is one hook that ran, for the human log.
type HookRun struct {
	Hook, Event, Tool string
	// Exit is the hook's exit code (-1: it did not run to an exit: a
	// timeout, a command that could not start).
	Exit    int
	Blocked bool
}

// Failed reports whether the hook failed (any exit but 0 that did not
// block).
func (r HookRun) Failed() bool { return r.Exit != 0 && !r.Blocked }

// Line is the hook's line in the human log, as spec/tool-engine.md shows
// it ("🔍 Hook python-lint: ⚠️"), with what happened after it.
func (r HookRun) Line() string {
	switch {
	case r.Blocked:
		return fmt.Sprintf("🔍 Hook %s: ⛔ blocked %s", r.Hook, r.Tool)
	case r.Exit == -1:
		return fmt.Sprintf("🔍 Hook %s: ⚠️ did not finish", r.Hook)
	case r.Exit != 0:
		return fmt.Sprintf("🔍 Hook %s: ⚠️ exit %d", r.Hook, r.Exit)
	}
	return fmt.Sprintf("🔍 Hook %s: ✅", r.Hook)
}

// WithHookContext returns ctx carrying hc for the hooks fired under it.
func WithHookContext(ctx context.Context, hc HookContext) context.Context {
	return withValue(ctx, hc)
}

// HookContextFrom is the HookContext ctx carries (zero when none).
func HookContextFrom(ctx context.Context) HookContext {
	return valueFrom[HookContext](ctx)
}

func matchesFiles(globs []string, path string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		if m, _ := doublestar.Match(g, path); m {
			return true
		}
	}
	return false
}

func (h *Hooks) run(ctx context.Context, hk Hook, input []byte, env []string) (int, string, string, error) {
	timeout := time.Duration(hk.Timeout) * time.Second
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", hk.Command)
	cmd.Dir = h.dir
	cmd.Stdin = bytes.NewReader(input)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return -1, stdout.String(), stderr.String(), fmt.Errorf("timed out after %s", timeout)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), stdout.String(), stderr.String(), nil
	}
	if err != nil {
		return -1, "", "", err
	}
	return 0, stdout.String(), stderr.String(), nil
}
