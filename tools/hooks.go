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
	"strings"
	"syscall"
	"time"

	"github.com/bmatcuk/doublestar/v4"
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
const HooksFile = ".autarch/hooks"

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
	dir   string
	hooks []Hook
}

// LoadHooks reads .autarch/hooks in dir; a missing file means no hooks.
func LoadHooks(dir string) (*Hooks, error) {
	h := &Hooks{dir: dir}
	data, err := os.ReadFile(filepath.Join(dir, HooksFile))
	if errors.Is(err, os.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", HooksFile, err)
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
	for _, hk := range h.hooks {
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
