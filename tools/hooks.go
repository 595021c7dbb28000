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
	EventError           = "error"
	EventBudgetWarning   = "budget_warning"
	EventContextCompress = "context_compress"
	EventAgentComplete   = "agent_complete"
)

// HooksFile is the repository file that configures hooks (JSON).
const HooksFile = trust.HooksFile

// Hook runs a command on an event.
type Hook struct {
	Event string `json:"event"`
	// Matcher is a regular expression on the tool name (tool events only).
	Matcher string `json:"matcher,omitempty"`
	// Files are doublestar globs; the hook runs only when the call's path matches one.
	Files   []string `json:"files,omitempty"`
	Command string   `json:"command"`
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
		if hk.Command == "" || hk.Event == "" {
			return nil, fmt.Errorf("%s: hook %d needs an event and a command", HooksFile, i)
		}
		if hk.Matcher != "" {
			re, err := regexp.Compile(hk.Matcher)
			if err != nil {
				return nil, fmt.Errorf("%s: hook %d matcher: %v", HooksFile, i, err)
			}
			hk.re = re
		}
		for _, f := range hk.Files {
			if !doublestar.ValidatePattern(f) {
				return nil, fmt.Errorf("%s: hook %d: invalid file pattern %q", HooksFile, i, f)
			}
		}
		h.hooks = append(h.hooks, hk)
	}
	return h, nil
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
	// Blocked is set when a hook exited 2; Reason is its stderr.
	Blocked bool
	Reason  string
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
	for _, hk := range h.active() {
		if hk.Event != event || (hk.re != nil && !hk.re.MatchString(tool)) || !matchesFiles(hk.Files, path) {
			continue
		}
		code, stdout, stderr, err := h.run(ctx, hk, input)
		switch {
		case err != nil:
			out.Warnings = append(out.Warnings, fmt.Sprintf("hook %q failed: %v", hk.Command, err))
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
		case code == 2:
			out.Blocked = true
			out.Reason = strings.TrimSpace(stderr)
			if out.Reason == "" {
				out.Reason = fmt.Sprintf("blocked by hook %q", hk.Command)
			}
			return out
		default:
			if event == EventPostToolUse {
				out.Context = append(out.Context, strings.TrimSpace(fmt.Sprintf("[Hook %s: FAILED (exit %d)]\n%s%s", hk.Command, code, stdout, stderr)))
				continue
			}
			out.Warnings = append(out.Warnings, fmt.Sprintf("hook %q exited %d: %s", hk.Command, code, strings.TrimSpace(stderr)))
		}
	}
	return out
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

func (h *Hooks) run(ctx context.Context, hk Hook, input []byte) (int, string, string, error) {
	timeout := time.Duration(hk.Timeout) * time.Second
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", hk.Command)
	cmd.Dir = h.dir
	cmd.Stdin = bytes.NewReader(input)
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
