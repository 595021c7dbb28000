package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/codesearch"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

// endpointFlags name the model endpoint and the model: --base-url and
// --model, as the verbs that run agents take them and autarch doctor
// checks them.
type endpointFlags struct {
	baseURL, model string
}

func (e *endpointFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&e.baseURL, "base-url", os.Getenv("OPENAI_BASE_URL"), "OpenAI-compatible endpoint (env OPENAI_BASE_URL)")
	fs.StringVar(&e.model, "model", os.Getenv("AUTARCH_MODEL"), "model name (env AUTARCH_MODEL; AUTARCH_MODEL_<ROLE> per role)")
}

// modelFlags are the flags that choose the agents' model and meter its
// calls, for every verb that runs agents of a workflow role.
type modelFlags struct {
	endpointFlags
	stream, envelope           bool
	maxIter                    int
	budget                     float64
	window                     int
	pricePrompt, priceComplete float64
}

func (m *modelFlags) add(fs *flag.FlagSet) {
	m.endpointFlags.add(fs)
	fs.BoolVar(&m.stream, "stream", true, "stream the model's answers")
	fs.BoolVar(&m.envelope, "envelope", false, "use the JSON tool_calls envelope (models without native tool calling)")
	fs.IntVar(&m.maxIter, "max-iterations", 40, "model calls per agent turn before the turn fails")
	fs.Float64Var(&m.budget, "budget", 0, "stop when this many dollars are spent (0: no cap)")
	fs.IntVar(&m.window, "context-window", 128000, "the model's context window in tokens (compaction starts at 80%)")
	fs.Float64Var(&m.pricePrompt, "price-prompt", 0, "dollars per million prompt tokens")
	fs.Float64Var(&m.priceComplete, "price-completion", 0, "dollars per million completion tokens")
}

// settings are the agents' model settings the flags and the environment
// (AUTARCH_MODEL_<ROLE>) give.
func (m *modelFlags) settings() agent.Settings {
	return agent.Settings{Model: m.model, RoleModels: agent.RoleModelsFromEnv(), ContextWindow: m.window,
		Pricing: agent.Pricing{PromptPerMillion: m.pricePrompt, CompletionPerMillion: m.priceComplete}, JSONEnvelope: m.envelope}
}

// engineFlags are the flags of the verbs that run workflow agents.
type engineFlags struct {
	modelFlags
	root, mode string
	yes        bool
	// dryRun opens the project with workflow.OpenDryRun (autarch run --dry-run).
	dryRun bool
	// live keeps the sessions' MCP servers for the side panel (serve only).
	live *liveServers
	// commands are --allow-commands/--no-commands (nil: the verb has none).
	commands *commandsFlags
}

// addRootFlag is --root alone, for the workflow verbs that run no agent.
func addRootFlag(fs *flag.FlagSet) *engineFlags {
	f := &engineFlags{}
	fs.StringVar(&f.root, "root", ".", "the project (a git repository)")
	return f
}

func addEngineFlags(fs *flag.FlagSet) *engineFlags {
	f := addRootFlag(fs)
	f.modelFlags.add(fs)
	fs.StringVar(&f.mode, "mode", string(tools.ModeConfirmSensitive), "confirmation mode for sensitive tool calls: yolo, confirm-sensitive or confirm-all")
	fs.BoolVar(&f.yes, "yes", false, "approve every card, extension and tool call, and answer questions with defaults (headless runs)")
	return f
}

// workflows is what the workflow verbs share: the repository, the store
// and (for verbs that run agents) the engine.
type workflows struct {
	repo    *git.Repo
	store   *store.Store
	engine  *workflow.Engine
	search  *codesearch.Search // nil in a dry run
	project *workflow.Project
	// model is the endpoint's client (nil for verbs that run no agents).
	model *openai.Model
}

func (w *workflows) close() {
	if w.search != nil {
		w.search.Close()
	}
	w.project.Close()
}

// openWorkflows opens the repository's workflow store and an engine over it.
// needModel says whether the verb runs agents.
func openWorkflows(ctx context.Context, io stdio, f *engineFlags, needModel bool) (*workflows, error) {
	if needModel && (agent.Settings{Model: f.model, RoleModels: agent.RoleModelsFromEnv()}).ModelFor(agent.Pulsing) == "" {
		return nil, errors.New("no model is configured: pass --model NAME or set AUTARCH_MODEL (with OPENAI_BASE_URL and OPENAI_API_KEY for an endpoint other than OpenAI's), then run this again")
	}
	modelCfg, err := openai.Config{BaseURL: f.baseURL, APIKey: os.Getenv("OPENAI_API_KEY"), Stream: f.stream}.WithEnv(os.Getenv)
	if err != nil {
		return nil, err
	}
	modelCfg.Gate = modelGate(ctx) // a fleet run's shared limits (nil locally)
	open := workflow.OpenProject
	if f.dryRun {
		open = workflow.OpenDryRun
	}
	p, err := open(ctx, f.root, nil)
	if errors.Is(err, git.ErrNotRepository) {
		return nil, notRepository(f.root)
	}
	if err != nil {
		return nil, err
	}
	if msg := p.Config.Untrusted(); msg != "" {
		fmt.Fprintln(io.err, "autarch: "+msg)
	}
	f.commands.apply(&p.Config.Settings)
	log := slog.New(tools.RedactHandler(slog.NewTextHandler(io.err, &slog.HandlerOptions{Level: slog.LevelWarn}), p.Egress))
	term := &editor.Terminal{In: io.in, Out: io.err, Interactive: isTerminal(io.in), AutoApprove: f.yes,
		NoTTYHint: "run it in a terminal to answer, or pass --yes to approve every card and tool call and answer questions with their first option"}
	names := pulseNames{store: p.Store}
	cfg := workflow.Config{Editor: term, Log: log, Events: func(ev workflow.Event) { printEvent(io, names.plan(ctx, ev)) }}
	var search *codesearch.Search
	if !f.dryRun { // the index is kept under .git, which a dry run leaves as it is
		search = newCodeSearch(p.Repo.Top(), term, true, log)
		cfg.Search = search.Scopes(p.Repo)
	}
	model := openai.New(modelCfg)
	w := &workflows{repo: p.Repo, store: p.Store, search: search, project: p, model: model}
	if err := f.wire(model, stderrWarn(io, "run"))(ctx, p, &cfg); err != nil {
		w.close()
		return nil, err
	}
	if w.engine, err = p.Engine(ctx, cfg); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

// notRepository says that root is no git repository, and how to make it
// one or where to point instead.
func notRepository(root string) error {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = root
	}
	return fmt.Errorf("%s is not in a git repository: Autarch works on branches of a git repository, never on loose files. "+
		"Make it one (cd %s && git init && git add -A && git commit -m initial), or pass --root with a repository's folder", abs, abs)
}

// noCommit says that a repository has no commit for a workflow to start
// from, and how to make one.
func noCommit(repo *git.Repo) error {
	return fmt.Errorf("the repository %s has no commit yet: a workflow starts from a commit and works on a branch of its own. "+
		"Commit your files first (git add -A && git commit -m initial), then run this again", repo.Top())
}

// printEvent shows a workflow event on the terminal (stderr), in words:
// the events' internal names (PlanCardResolved, PulseCompleted, …) stay in
// the events for editors.
func printEvent(io stdio, ev workflow.Event) {
	io.err = editor.Shown(io.err) // the agent's words: reasons, messages, comments, summaries
	if ev.PulseID != "" && ev.Kind != editor.EventPulse && ev.Kind != editor.EventUsage {
		// Parallel pulses interleave: each line names its pulse, written
		// whole.
		var b strings.Builder
		own := ev
		own.PulseID = ""
		printEvent(stdio{in: io.in, out: io.out, err: &b}, own)
		if b.Len() > 0 {
			fmt.Fprint(io.err, prefixLines("["+ev.PulseID+"] ", b.String()))
		}
		return
	}
	if printActivity(io, string(ev.Kind), ev.Tool, ev.Reason, ev.Text, ev.Failed) {
		return
	}
	switch ev.Kind {
	case editor.EventStage:
		fmt.Fprintln(io.err, stageWords(ev))
	case editor.EventPulse:
		fmt.Fprintf(io.err, "◆ pulse %s %s\n", ev.PulseID, pulseWords(ev))
	case editor.EventCard:
		fmt.Fprintf(io.err, "■ %s\n", cardWords(ev))
	case editor.EventReviewComment:
		fmt.Fprintf(io.err, "  ✎ [%s] %s\n", ev.Status, ev.Text)
	case editor.EventHalt:
		if ev.Status == string(store.WorkflowFailed) {
			fmt.Fprintln(io.err, "■ workflow failed") // runResult prints the cause
			break
		}
		fmt.Fprintf(io.err, "■ workflow %s: %s\n", strings.ToLower(ev.Status), ev.Text)
	}
}

// printActivity shows an agent's activity as a workflow's and a job's
// logs show it alike (kind "tool_call", "tool_result" when it failed,
// "hook", "retry" or "message"); false when kind is none of these.
func printActivity(io stdio, kind, tool, reason, text string, failed bool) bool {
	switch kind {
	case string(editor.EventToolCall):
		fmt.Fprintf(io.err, "  • %s: %s\n", tool, reason)
	case string(editor.EventToolResult):
		if failed {
			fmt.Fprintf(io.err, "    ✗ %s failed: %s\n", tool, text)
		}
	case "hook":
		fmt.Fprintf(io.err, "    %s\n", text)
	case "retry":
		fmt.Fprintf(io.err, "  ↻ %s\n", text)
	case string(editor.EventMessage):
		fmt.Fprintf(io.err, "\n%s\n\n", text)
	default:
		return false
	}
	return true
}

// stageWords says which stage a workflow entered, from the event's typed
// fields: "▶ research" for a stage change (From), "▶ scoping: workflow
// calc-sub started", "  preflight checks the build in … DIR" (Worktree).
func stageWords(ev workflow.Event) string {
	switch {
	case ev.Worktree != "":
		return "  preflight checks the build in the workflow's worktree, " + ev.Worktree
	case ev.From != "" || ev.Text == "":
		return "▶ " + ev.Stage
	}
	return "▶ " + ev.Stage + ": " + ev.Text
}

// pulseWords says what happened to a pulse: "started: Add Sub",
// "succeeded: feat(calc): add Sub (1a2b3c4, +3 −0)", "completed with
// unresolved issues: …" (Unresolved).
func pulseWords(ev workflow.Event) string {
	switch {
	case ev.Status == string(workflow.PulseSucceeded) && ev.Unresolved > 0:
		return "completed with unresolved issues: " + ev.Text
	case (ev.Status == "QualityGates" || ev.Status == "Rebased") && ev.Text != "":
		return ev.Text // "quality gates in 2s: build go build: pass; …", "rebased onto …"
	}
	verb := pulseVerb(ev.Status)
	if ev.Text == "" {
		return verb
	}
	return verb + ": " + ev.Text
}

// pulseVerb says a pulse status in words: "started", "waits to land".
func pulseVerb(status string) string {
	verb := map[string]string{string(workflow.PulseRunning): "started", string(workflow.PulseSucceeded): "succeeded",
		string(workflow.PulseFailed): "failed", string(workflow.PulseStopped): "stopped",
		"QualityGates": "quality gates ran", "CompletionRejected": "completion sent back to the agent",
		// parallel pulses
		"Lane": "lane", "WaitingToLand": "waits to land", "Leased": "waits for a lease", "Rebased": "rebased", "Conflict": "conflict"}[status]
	if verb == "" {
		verb = strings.ToLower(status)
	}
	return verb
}

// cardWords says what happened to a card or an extension request, from
// the event's Card.
func cardWords(ev workflow.Event) string {
	with := func(s string) string {
		if ev.Text == "" {
			return s
		}
		return s + ": " + ev.Text
	}
	c := ev.Card
	if c == nil {
		return with(ev.Status)
	}
	switch {
	case c.Kind == editor.CardPlan && c.Status == editor.CardApproved:
		return "plan approved"
	case c.Kind == editor.CardExtension && c.Status == editor.CardApproved:
		return "extension approved"
	case c.Kind == editor.CardExtension && c.Status == editor.CardRejected:
		return with("extension declined")
	case c.Kind == editor.CardReview && c.Status == editor.CardSubmitted:
		return with("review recommends " + strings.ReplaceAll(c.Recommendation, "_", " "))
	}
	switch c.Status {
	case editor.CardSubmitted:
		return with(string(c.Kind) + " card submitted for approval")
	case editor.CardRejected:
		return with(string(c.Kind) + " card sent back with changes")
	case editor.CardApproved:
		return string(c.Kind) + " card approved"
	}
	return with(ev.Status)
}

// runResult prints how a run ended and returns the exit code: 0 when the
// workflow completed, 3 when it waits for the user or halted for review,
// 1 on failure (with how to resume a workflow recorded as Failed).
func runResult(io stdio, wf store.Workflow, err error) int {
	fmt.Fprintf(io.out, "%s\t%s\t%s\t%s\n", wf.ID, wf.Name, wf.Stage, wf.Status)
	switch {
	case err == nil && wf.Status == store.WorkflowCompleted:
		return 0
	case err == nil:
		return 3
	}
	if kernel.IsLocked(err) {
		fmt.Fprintf(io.err, "autarch: workflow %s is running in another autarch process: follow it there (autarch status shows where it is), or stop it with: autarch stop %s\n", wf.Name, wf.Name)
		return 1
	}
	fmt.Fprintf(io.err, "autarch: %s\n", endWords(wf, err))
	if wf.Status == store.WorkflowAbandoned || wf.ID == "" {
		return 1
	}
	resume := "autarch resume " + wf.Name
	if errors.Is(err, editor.ErrNoTTY) {
		resume = "autarch resume --yes " + wf.Name
	}
	switch wf.Status {
	case store.WorkflowAwaitingUser, store.WorkflowHalted, store.WorkflowStopped:
		fmt.Fprintf(io.err, "autarch: continue with: %s\n", resume)
		return 3
	case store.WorkflowFailed:
		return continueOnceFixed(io, "the workflow", "failed", " from its last completed step", resume)
	}
	return 1
}

// continueOnceFixed says how to continue a run (what: "the job") that
// ended recorded as status, once the cause is fixed (from: where it
// continues, "" unsaid), and returns 1, the exit code of a failed run.
func continueOnceFixed(io stdio, what, status, from, resume string) int {
	fmt.Fprintf(io.err, "autarch: %s is recorded as %s; once the cause is fixed, continue%s with: %s\n", what, status, from, resume)
	return 1
}

// endWords says in words why a run ended with err: a stop names the
// stage it happened in and says the work is kept; a halt says where and
// why; anything else is err's own text.
func endWords(wf store.Workflow, err error) string {
	var h *workflow.Halt
	if !errors.As(err, &h) {
		return err.Error()
	}
	where := wf.Stage
	if h.Stage != "" {
		where = string(h.Stage)
	}
	switch {
	case wf.Status == store.WorkflowStopped || h.Status == workflow.PulseStopped && h.Pulse == "":
		why := wf.StatusReason
		if why == "" {
			why = h.Reason
		}
		at := "in " + where
		if h.Pulse != "" {
			at = "at pulse " + h.Pulse
		}
		return fmt.Sprintf("workflow %s was stopped %s (%s); its work so far is kept", wf.Name, at, why)
	case h.Pulse != "":
		return fmt.Sprintf("workflow %s halted at pulse %s (%s): %s", wf.Name, h.Pulse, pulseVerb(string(h.Status)), h.Reason)
	}
	return fmt.Sprintf("workflow %s halted in %s: %s", wf.Name, where, h.Reason)
}

// prefixLines puts prefix before every non-empty line of s.
func prefixLines(prefix, s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}

// pulseNames gives the events of a pulse's agent, which name the stored
// pulse, the plan's pulse id instead ("pulse-2"), for the CLI's prefixes.
type pulseNames struct {
	store *store.Store
	ids   sync.Map // stored pulse id → the plan's
}

func (n *pulseNames) plan(ctx context.Context, ev workflow.Event) workflow.Event {
	if ev.PulseID == "" || ev.Kind == editor.EventPulse || n.store == nil {
		return ev
	}
	if id, ok := n.ids.Load(ev.PulseID); ok {
		ev.PulseID = id.(string)
		return ev
	}
	if p, err := n.store.Pulse(ctx, ev.PulseID); err == nil {
		n.ids.Store(ev.PulseID, p.PlannedID)
		ev.PulseID = p.PlannedID
	}
	return ev
}
