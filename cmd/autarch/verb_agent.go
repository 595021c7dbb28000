package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
)

func agentVerb() verb {
	return verb{
		name:    "agent",
		usage:   "autarch agent [--root DIR] [--role ROLE] [--base-url URL] [--model NAME] [--stream] [--envelope] [--mode MODE] [--dry-run] [--max-iterations N] [--budget DOLLARS] INPUT",
		summary: "run one agent turn for a role and print how it ended (JSON)",
		run:     runAgent,
	}
}

func runAgent(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("agent", io)
	root := fs.String("root", ".", "workspace the agent works in")
	role := fs.String("role", agent.Discussion, "agent role: discussion, scoping, research, plan, preflight, pulsing or review")
	var mf modelFlags
	mf.add(fs)
	mode := fs.String("mode", string(tools.ModeConfirmSensitive), "confirmation mode: yolo, confirm-sensitive or confirm-all")
	dryRun := fs.Bool("dry-run", false, "execute reads, record writes and commands without running them, and print the plan")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	input := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if input == "" {
		return usageError(io, agentVerb())
	}
	settings := mf.settings()
	if mf.model == "" && settings.ModelFor(*role) == "" {
		fmt.Fprintln(io.err, "autarch agent: no model: pass --model or set AUTARCH_MODEL")
		return 2
	}
	m, err := tools.ParseMode(*mode)
	if err != nil {
		return fail(io, "agent", 2, err)
	}
	reg, err := agent.Registry(*role, tools.Deps{})
	if err != nil {
		return fail(io, "agent", 2, err)
	}
	project, reg, closeServers, err := projectTools(ctx, io, "agent", *root, *role, reg)
	if err != nil {
		return fail(io, "agent", 1, err)
	}
	defer closeServers()
	term := &editor.Terminal{In: io.in, Out: io.err, Interactive: isTerminal(io.in)}
	policy, err := commandPolicy(ctx, stderrWarn(io, "agent"))
	if err != nil {
		return fail(io, "agent", 2, err)
	}
	policy = withNetwork(policy, project.Settings)
	search := newCodeSearch(*root, term, true, warnLog(io.err, *root))
	defer search.Close()
	sess, err := tools.NewSession(tools.SessionConfig{Root: *root, Role: *role, Mode: m, DryRun: *dryRun, Editor: term, Workflow: true, Search: searcher(search, *dryRun),
		Commands: policy, Protected: project.Guardrails.ProtectedPaths(),
		AllowDelete: project.Settings.Workspace.AllowDelete, AllowedOnly: project.Settings.Commands.AllowedOnly})
	if err != nil {
		return fail(io, "agent", 1, err)
	}
	defer sess.Close()
	logger := warnLog(io.err, *root)
	a, err := agent.New(agent.Config{
		Role: *role, Model: openai.New(openai.Config{BaseURL: mf.baseURL, APIKey: os.Getenv("OPENAI_API_KEY"), Stream: mf.stream}), ModelName: settings.ModelFor(*role),
		Engine: tools.NewEngine(reg, project.Hooks, logger).WithGuardrails(project.Guardrails), Session: sess, MaxIterations: mf.maxIter,
		Meter: agent.NewMeter(mf.budget), JSONEnvelope: settings.JSONEnvelope, ContextWindow: settings.ContextWindow, Pricing: settings.Pricing,
		Events: func(e agent.Event) {
			switch {
			case e.Kind == "tool_call" && e.Parent != "":
				fmt.Fprintf(io.err, "    ↳ %s sub-agent · %s: %s\n", e.Subagent, e.Tool, e.Reason)
			case e.Kind == "tool_call":
				fmt.Fprintf(io.err, "• %s: %s\n", e.Tool, e.Reason)
			}
		},
	})
	if err != nil {
		return fail(io, "agent", 2, err)
	}
	out, err := a.RunTurn(ctx, input)
	if errors.Is(err, tools.ErrAborted) {
		fmt.Fprintf(io.err, "autarch agent: stopped: %v (nothing after it ran)\n", err)
		return 130
	}
	if err != nil {
		return fail(io, "agent", 1, err)
	}
	res := map[string]any{"outcome": out.Kind, "iterations": out.Iterations, "usage": out.Usage, "cost": settings.Pricing.Cost(out.Usage)}
	if out.Tool != "" {
		res["tool"], res["args"] = out.Tool, json.RawMessage(out.Args)
	}
	if out.Text != "" {
		res["text"] = out.Text
	}
	if *dryRun {
		plan := append(tools.Plan{}, sess.DryRunSummary()...)
		res["dry_run"] = map[string]any{"planned": plan, "summary": plan.Summary()}
		fmt.Fprint(io.err, plan.Summary())
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	fmt.Fprintln(io.out, string(b))
	if out.Kind == agent.OutcomeFailed || out.Kind == agent.OutcomeBudget {
		return 1
	}
	return 0
}
