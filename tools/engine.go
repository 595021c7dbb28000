package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools/shellcmd"
)

// validator is implemented by tools that check their arguments against a schema.
type validator interface {
	Validate(args json.RawMessage) error
}

// Engine runs every tool call through one pipeline: lookup → validate →
// guardrails → pre-tool-use hooks → confirmation → dry-run → execute →
// egress gate → post-tool-use hooks → egress gate → log.
type Engine struct {
	reg        *Registry
	hooks      *Hooks
	guardrails *Guardrails
	log        *slog.Logger
}

// NewEngine makes an engine over a registry; hooks may be nil.
func NewEngine(reg *Registry, hooks *Hooks, log *slog.Logger) *Engine {
	if log == nil {
		log = slog.Default()
	}
	return &Engine{reg: reg, hooks: hooks, log: log}
}

// WithGuardrails sets the guardrails (nil: only the built-in protections).
func (e *Engine) WithGuardrails(g *Guardrails) *Engine {
	e.guardrails = g
	return e
}

// Derive is an engine over another registry with e's hooks, guardrails
// and log (a sub-agent's).
func (e *Engine) Derive(reg *Registry) *Engine {
	return &Engine{reg: reg, hooks: e.hooks, guardrails: e.guardrails, log: e.log}
}

// Registry is the engine's tool registry.
func (e *Engine) Registry() *Registry { return e.reg }

// Hooks is the engine's hook runner (for lifecycle events).
func (e *Engine) Hooks() *Hooks { return e.hooks }

// callArgs is the part of every call's arguments the engine reads.
type callArgs struct {
	Reason  string `json:"reason"`
	Path    string `json:"path"`
	Command string `json:"command"`
}

// failureKey says what a write call acted on: a later successful call on
// the same thing resolves its failure.
func (ca callArgs) failureKey(tool string) string {
	switch {
	case ca.Command != "":
		return "command:" + strings.Join(strings.Fields(ca.Command), " ")
	case ca.Path != "":
		return "file:" + path.Clean(filepath.ToSlash(ca.Path))
	}
	return "tool:" + tool
}

// Call runs one tool call. The model's mistakes come back as results; the
// error is only for broken infrastructure.
func (e *Engine) Call(ctx context.Context, s *Session, name string, args json.RawMessage) (res Result, err error) {
	start := time.Now()
	var ca callArgs
	var kind Kind = ReadOnly
	var clean string // an output already filtered
	tc := s.cfg.Context
	if tc.JobID != "" {
		ctx = WithToolContext(ctx, tc)
	}
	defer func() {
		// The egress gate: whatever the path out of here (a tool's result,
		// a refusal quoting the arguments, a hook's context), the result
		// is filtered; no tool can skip it.
		if res.Output != clean {
			res = s.egress.Result(res)
		}
		if kind == Write {
			s.recordCall(name, ca.failureKey(name), res.Failed, summarize(res))
		}
		e.log.Info("tool call", append([]any{"tool", name, "reason", ca.Reason, "path", ca.Path, "failed", res.Failed, "dur", time.Since(start), "err", err}, tc.attrs()...)...)
	}()
	if e.guardrails != nil {
		s.guardrails.Store(e.guardrails)
	}
	t, ok := e.reg.Get(name)
	if ok {
		kind = t.Kind()
	}
	if !ok {
		if msg, ok := notOffered(name, s.langServerList()); ok {
			return opError(msg), nil
		}
		return opError(fmt.Sprintf("Tool not found: %q. Available tools: %s", name, strings.Join(e.reg.Names(), ", "))), nil
	}
	if v, ok := t.(validator); ok {
		if err := v.Validate(args); err != nil {
			return opError(invalidArgs(err)), nil
		}
	}
	json.Unmarshal(args, &ca)
	if msg := e.guardrails.check(s, t, args); msg != "" {
		return refusal("Guardrail: " + msg), nil
	}
	pre := e.hooks.Fire(ctx, EventPreToolUse, name, s.hookPath(ca.Path), json.RawMessage(args))
	if pre.Blocked {
		return refusal(pre.BlockedMessage()), nil
	}
	if len(pre.UpdatedInput) > 0 {
		// A hook's rewrite is checked like the model's call: schema, then guardrails.
		args = pre.UpdatedInput
		if v, ok := t.(validator); ok {
			if err := v.Validate(args); err != nil {
				return errorResult("a hook's updatedInput is invalid: " + err.Error()), nil
			}
		}
		ca = callArgs{}
		json.Unmarshal(args, &ca)
		if msg := e.guardrails.check(s, t, args); msg != "" {
			return refusal("Guardrail: a hook's updatedInput is refused: " + msg), nil
		}
	}
	if res, ok, err := e.confirm(ctx, s, t, args, ca); !ok {
		return res, err
	}
	if s.cfg.DryRun && t.Kind() == Write {
		if res, ok := s.dryRunRefusal(name, args); !ok {
			return res, nil
		}
		planned := s.plannedEntry(name, args, ca.Reason)
		s.recordDryRun(planned)
		return jsonResult(map[string]any{"success": true, "dry_run": true, "plan": planned.Action,
			"message": fmt.Sprintf("[DRY-RUN] Would execute: %s(%s)", name, args)}, false), nil
	}
	s.takeTouched()
	res, err = e.execute(ctx, s, t, args)
	if err != nil {
		return res, err
	}
	if t.Kind() == Write && ca.Path != "" && !res.Failed {
		if rel, err := s.root.Clean(ca.Path); err == nil {
			s.markWritten(rel)
		}
	}
	if touched := s.takeTouched(); len(touched) > 0 && !res.Failed && name != "rename_symbol" {
		res = s.lspAfterWrite(ctx, touched, res)
	}
	// Hooks see the result as the model will (filtered once more, with
	// their context, on the way out).
	res = s.egress.Result(res)
	clean = res.Output
	post := e.hooks.Fire(ctx, EventPostToolUse, name, s.hookPath(ca.Path), map[string]any{"args": json.RawMessage(args), "result": res.Output})
	if extra := append(pre.Context, post.Context...); len(extra) > 0 {
		res = appendContext(res, extra)
	}
	for _, w := range append(pre.Warnings, post.Warnings...) {
		e.log.Warn("hook warning", "tool", name, "warning", w)
	}
	return res, nil
}

// execute runs the tool, turning a panic into a failed result.
func (e *Engine) execute(ctx context.Context, s *Session, t Tool, args json.RawMessage) (res Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("tool panicked", "tool", t.Name(), "panic", r, "stack", string(debug.Stack()))
			res, err = errorResult(fmt.Sprintf("internal error in %s: %v", t.Name(), r)), nil
		}
	}()
	return t.Run(ctx, s, args)
}

// confirm applies the confirmation policy; ok=false returns res to the
// model, and err (ErrAborted) when the user aborted the whole run.
func (e *Engine) confirm(ctx context.Context, s *Session, t Tool, args json.RawMessage, ca callArgs) (Result, bool, error) {
	if msg := s.refusedUnasked(t.Name(), ca); msg != "" {
		return refusal(msg), false, nil
	}
	if s.cfg.DryRun && t.Kind() == Write {
		return Result{}, true, nil // recorded, not run: there is nothing to allow (spec: CI uses --dry-run)
	}
	mode := s.cfg.Mode
	need := mode == ModeConfirmAll && t.Kind() != Terminal ||
		mode == ModeConfirmSensitive && t.Sensitive(args)
	if !need {
		return Result{}, true, nil
	}
	key := alwaysKey(t, ca)
	if s.allowedAlways(key) {
		return Result{}, true, nil
	}
	if s.cfg.Editor == nil {
		return refusal(fmt.Sprintf("No TTY available for confirmation: %s needs confirmation in %s mode; run in yolo mode to allow it", t.Name(), mode)), false, nil
	}
	v, err := s.cfg.Editor.Approve(ctx, editor.Approval{
		Kind: "tool", Title: fmt.Sprintf("Allow %s?", t.Name()), Detail: s.approvalDetail(t.Name(), args, ca), Reason: ca.Reason, AllowAlways: true, AllowAbort: true,
	})
	if errors.Is(err, editor.ErrNoTTY) {
		return refusal(fmt.Sprintf("No TTY available for confirmation: %s needs confirmation in %s mode; run in yolo mode to allow it", t.Name(), mode)), false, nil
	}
	if err != nil {
		return opError("could not ask for confirmation: " + err.Error()), false, nil
	}
	switch v.Decision {
	case editor.DecisionApprove:
		return Result{}, true, nil
	case editor.DecisionAbort:
		return refusal(abortedMessage), false, ErrAborted
	case editor.DecisionAlwaysAllow:
		if err := s.allowAlways(key); err != nil {
			e.log.Warn("persisting always-allow", "err", err)
		}
		return Result{}, true, nil
	}
	msg := "Action cancelled by user"
	if v.Feedback != "" {
		msg += " Feedback: " + v.Feedback
	}
	return refusal(msg), false, nil
}

// alwaysKey is what an "always allow" answer covers: the tool, and for
// shell the command's name when the line runs exactly one command that is
// not dangerous (always allowing go test does not allow go test; rm -rf x),
// or else the whole line, normalised.
func alwaysKey(t Tool, ca callArgs) string {
	if t.Name() != "shell" || strings.TrimSpace(ca.Command) == "" {
		return t.Name()
	}
	a := shellcmd.Analyze(ca.Command)
	if c, ok := a.Single(); ok && a.Class != shellcmd.Dangerous {
		return "shell:" + c.Name()
	}
	if n := a.Normalized(); n != "" && a.Err == nil {
		return "shell:" + n
	}
	return "shell:" + strings.TrimSpace(ca.Command)
}

// appendContext adds hook output to a result.
func appendContext(res Result, extra []string) Result {
	joined := strings.Join(extra, "\n")
	if out, ok := withJSONKey(res, "hook_context", joined); ok {
		return out
	}
	res.Output += "\n\n[hook] " + joined
	return res
}

// withJSONKey is res with key set to v in its JSON object; ok=false when
// res is not a JSON object.
func withJSONKey(res Result, key string, v any) (Result, bool) {
	var m map[string]any
	if !res.JSON || json.Unmarshal([]byte(res.Output), &m) != nil {
		return res, false
	}
	m[key] = v
	out := jsonResult(m, res.Failed)
	out.Refused = res.Refused
	return out, true
}

// summarize is a one-line summary of a failed result.
func summarize(r Result) string {
	s := r.Output
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// invalidArgs words a validation error as the spec's "Invalid arguments: ...".
func invalidArgs(err error) string {
	msg := strings.TrimPrefix(err.Error(), "invalid arguments: ")
	return "Invalid arguments: " + msg
}
