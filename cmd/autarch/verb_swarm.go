package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/swarm/orchestrate"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

func swarmVerb() verb {
	return verb{
		name:    "swarm",
		usage:   "autarch swarm [--agents NAME=MODEL,…] [--rounds N] [--arbiter MODEL|human] [--allow-write] [--read-only] [--concurrency N] [--base REF] [--root DIR] [--model NAME] TASK | --resume ID | --list [--json]",
		summary: "run several agents on one task in rounds, sharing findings; an arbiter approves their writes to the swarm's own branch",
		run:     runSwarm,
	}
}

// swarmFlags are the swarm verb's choices.
type swarmFlags struct {
	root, baseURL, model, agents, arbiter, base, resume string
	rounds, maxIter, tokenBudget, concurrency           int
	allowWrite, readOnly, stream, list, json            bool
}

func addSwarmFlags(fs *flag.FlagSet) *swarmFlags {
	f := &swarmFlags{}
	fs.StringVar(&f.root, "root", ".", "the project (a git repository)")
	fs.StringVar(&f.baseURL, "base-url", os.Getenv("OPENAI_BASE_URL"), "OpenAI-compatible endpoint (env OPENAI_BASE_URL)")
	fs.StringVar(&f.model, "model", os.Getenv("AUTARCH_MODEL"), "default model of the agents (env AUTARCH_MODEL)")
	fs.StringVar(&f.agents, "agents", "", "agents as NAME=MODEL,… (empty MODEL: the default model; MODEL@envelope: no native tool calling); default explorer,tester,critic")
	fs.IntVar(&f.rounds, "rounds", 3, "rounds of the swarm (1 to 50)")
	fs.StringVar(&f.arbiter, "arbiter", "human", "who approves writes: human (asked here) or a model name answering STRICT JSON decisions")
	fs.BoolVar(&f.allowWrite, "allow-write", false, "apply approved writes (in the swarm's worktree, committed on its branch); without it nothing is written")
	fs.BoolVar(&f.readOnly, "read-only", false, "proposal rounds: no fs_write; each agent ends with an improvement proposal")
	fs.StringVar(&f.base, "base", "", "ref the swarm's branch starts from (default HEAD)")
	fs.StringVar(&f.resume, "resume", "", "resume the swarm with this id from where it stopped")
	fs.IntVar(&f.maxIter, "max-iterations", 12, "model calls per agent turn")
	fs.IntVar(&f.tokenBudget, "token-budget", orchestrate.DefaultTokenBudget, "tokens a run may spend (all agents); a spent budget stops the swarm, --resume continues with a new one")
	fs.IntVar(&f.concurrency, "concurrency", 0, fmt.Sprintf("agents of a round taking their turns at once (default min(agents, %d)); 1: one after another, each seeing the round's earlier findings", orchestrate.DefaultConcurrency))
	fs.BoolVar(&f.stream, "stream", false, "stream the model's answers")
	fs.BoolVar(&f.list, "list", false, "list the project's swarms (most recent first)")
	fs.BoolVar(&f.json, "json", false, "with --list: print JSON")
	return f
}

func runSwarm(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("swarm", io)
	f := addSwarmFlags(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	task := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if f.list && task == "" && f.resume == "" {
		return listSwarms(ctx, io, f)
	}
	if f.list || (task == "") == (f.resume == "") {
		return usageError(io, swarmVerb())
	}
	if f.concurrency < 0 || f.concurrency > 64 {
		fmt.Fprintf(io.err, "autarch swarm: --concurrency %d: give 1 to 64 agents at once (0: the default, min(agents, %d))\n", f.concurrency, orchestrate.DefaultConcurrency)
		return 2
	}
	var agents []editor.SwarmAgent
	if f.resume == "" {
		var err error
		if agents, err = orchestrate.ParseAgents(splitList(f.agents)); err != nil {
			fmt.Fprintf(io.err, "autarch swarm: --agents: %v\n", err)
			return 2
		}
		if f.readOnly && f.allowWrite {
			fmt.Fprintln(io.err, "autarch swarm: --read-only and --allow-write exclude each other: a proposal round writes nothing")
			return 2
		}
	}
	repo, err := git.Open(ctx, f.root, git.Config{})
	if err != nil {
		return fail(io, "swarm", 1, err)
	}
	o, closeEngine, err := newOrchestrator(ctx, io, f, repo)
	if err != nil {
		return fail(io, "swarm", 1, err)
	}
	defer closeEngine()
	id := f.resume
	if id == "" {
		for _, a := range agents {
			if a.Model == "" && f.model == "" {
				fmt.Fprintf(io.err, "autarch swarm: agent %s has no model: pass --model NAME, set AUTARCH_MODEL, or give --agents %s=MODEL\n", a.Name, a.Name)
				return 2
			}
		}
		st, err := o.Start(ctx, orchestrate.Options{Task: task, Agents: agents, Rounds: f.rounds, Arbiter: f.arbiter,
			AllowWrite: f.allowWrite, ReadOnly: f.readOnly, Base: f.base})
		if err != nil {
			return fail(io, "swarm", 2, err)
		}
		id = st.ID
	}
	st, err := o.Run(ctx, id)
	return swarmResult(io, repo.StateDir(), st, err)
}

// newOrchestrator wires a swarm orchestrator: the model endpoint, the
// arbiter (the terminal or a model) and the project's swarm engine.
func newOrchestrator(ctx context.Context, io stdio, f *swarmFlags, repo *git.Repo) (*orchestrate.Orchestrator, func(), error) {
	modelCfg, err := openai.Config{BaseURL: f.baseURL, APIKey: os.Getenv("OPENAI_API_KEY"), Stream: f.stream}.WithEnv(os.Getenv)
	if err != nil {
		return nil, nil, err
	}
	model := openai.New(modelCfg)
	project, err := loadProject(io, "swarm", repo.Top())
	if err != nil {
		return nil, nil, err
	}
	open, closeEngine, err := orchestrate.ConnectNATS(ctx, repo.StateDir(), project.Settings.Swarm, warnLog(io.err, repo.Top()))
	if err != nil {
		return nil, nil, err
	}
	policy, err := commandPolicy(ctx, stderrWarn(io, "swarm"))
	if err != nil {
		closeEngine()
		return nil, nil, err
	}
	servers, err := mcpManager(io, project)
	if err != nil {
		stderrWarn(io, "swarm")(fmt.Sprintf("MCP servers: %v; the agents get no MCP tool until it is fixed", err))
	}
	closeAll := func() { closeEngine(); servers.Close() }
	arbiter := func(name string) orchestrate.Arbiter { return swarmArbiter(io, name, model, project.Hooks) }
	o, err := orchestrate.New(orchestrate.Config{Repo: repo, Open: open, Model: model, DefaultModel: f.model,
		Arbiter: arbiter, MaxIterations: f.maxIter, TokenBudget: f.tokenBudget, Concurrency: f.concurrency, Hooks: project.Hooks, Guardrails: project.Guardrails,
		Commands: withNetwork(policy, project.Settings), Events: func(ev editor.SwarmEvent) { printSwarmEvent(io, ev) },
		Tools: managerTools(servers, stderrWarn(io, "swarm"))})
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return o, closeAll, nil
}

// swarmArbiter is the human at this terminal, or an arbiter model whose
// calls go through hooks.
func swarmArbiter(io stdio, name string, model agent.Model, hooks *tools.Hooks) orchestrate.Arbiter {
	if name == "" || name == "human" {
		return orchestrate.TerminalArbiter{In: io.in, Out: io.err}
	}
	return orchestrate.ModelArbiter{Model: model, ModelName: name, Hooks: hooks, Log: func(s string) { fmt.Fprintf(io.err, "  ✗ %s\n", s) }}
}

func splitList(s string) []string {
	var out []string
	for _, it := range strings.Split(s, ",") {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}

// swarmResult prints how a swarm's run ended and returns the exit code: 0
// done, 3 stopped (resumable), 1 failed (resumable once fixed) or done
// with a branch failing its quality gates.
func swarmResult(io stdio, stateDir string, st *orchestrate.State, err error) int {
	if st == nil {
		return fail(io, "swarm", 1, err)
	}
	fmt.Fprintf(io.out, "%s\t%s\tround %d/%d\t%s\n", st.ID, st.Status, min(st.Round, st.Rounds), st.Rounds, st.Branch)
	resume := "autarch swarm --resume " + st.ID
	switch {
	case errors.Is(err, orchestrate.ErrBusy):
		fmt.Fprintf(io.err, "autarch swarm: %v: wait for it to finish, or stop it first\n", err)
		return 1
	case st.Status == orchestrate.StatusDone:
		fmt.Fprintf(io.err, "autarch: swarm %s is done: %d commit(s) on %s (worktree %s); transcript: %s\n", st.ID, len(st.Commits), st.Branch, st.Worktree, filepath.Join(orchestrate.Dir(stateDir), st.ID, "transcript.jsonl"))
		if failing := st.FailingGates(); len(failing) > 0 {
			fmt.Fprintf(io.err, "autarch: do not merge %s: after round %d it fails its quality gates: %s (the transcript's \"gates\" events show what broke).\n", st.Branch, st.GatesRound, strings.Join(failing, ", "))
			fmt.Fprintf(io.err, "autarch: fix it on the branch in %s, or let a swarm fix it with more rounds: autarch swarm --base %s --allow-write TASK\n", st.Worktree, st.Branch)
			return 1
		}
		if len(st.Commits) > 0 {
			fmt.Fprintf(io.err, "autarch: review it with: git log -p HEAD..%s — merge it with: git merge %s\n", st.Branch, st.Branch)
		}
		return 0
	case st.Status == orchestrate.StatusStopped:
		fmt.Fprintf(io.err, "autarch: swarm %s stopped: %s\nautarch: continue with: %s\n", st.ID, st.Reason, resume)
		return 3
	}
	if err != nil {
		fmt.Fprintf(io.err, "autarch swarm: %v\n", err)
	}
	return continueOnceFixed(io, "the swarm", string(st.Status), "", resume)
}

// printSwarmEvent shows a swarm event on the terminal (stderr).
func printSwarmEvent(io stdio, ev editor.SwarmEvent) {
	io.err = editor.Shown(io.err) // the agents' words, as printEvent
	switch ev.Kind {
	case "status":
		fmt.Fprintf(io.err, "■ swarm %s: %s\n", ev.Status, ev.Text)
	case "round", "awaiting":
		fmt.Fprintf(io.err, "\n◆ %s\n", ev.Text)
	case "tool_call":
		fmt.Fprintf(io.err, "  • %s: %s %s\n", ev.Agent, ev.Tool, clipLine(ev.Text, 120))
	case "tool_result", "rate_limited":
		if ev.Failed {
			fmt.Fprintf(io.err, "    ✗ %s %s: %s\n", ev.Agent, ev.Tool, clipLine(ev.Text, 200))
		}
	case "hook":
		fmt.Fprintf(io.err, "    %s (%s)\n", ev.Text, ev.Agent) // the spec's line, as a workflow's log shows it
	case "text":
		fmt.Fprintf(io.err, "  %s: %s\n", ev.Agent, clipLine(ev.Text, 400))
	case "proposal":
		fmt.Fprintf(io.err, "  ✎ %s proposes %s\n", ev.Agent, ev.Path)
	case "decision":
		fmt.Fprintf(io.err, "  ⚖ %s %s (%s): %s\n", ev.Action, ev.Path, ev.Agent, ev.Text)
	case "gates":
		mark := "✓"
		if ev.Failed {
			mark = "✗"
		}
		fmt.Fprintf(io.err, "  %s %s\n", mark, strings.TrimSpace(ev.Text))
	case "applied", "commit", "improvement", "error":
		fmt.Fprintf(io.err, "  ◇ %s %s %s\n", ev.Kind, ev.Path, clipLine(ev.Text, 400))
	}
}

func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// listSwarms prints the project's swarms: a table, or JSON.
func listSwarms(ctx context.Context, io stdio, f *swarmFlags) int {
	repo, err := git.Open(ctx, f.root, git.Config{})
	if err != nil {
		return fail(io, "swarm", 1, err)
	}
	return printSwarms(io, repo.StateDir(), f.json, false)
}

// printSwarms prints the swarms recorded under stateDir: a table, or JSON;
// with quiet, nothing at all when there are none.
func printSwarms(io stdio, stateDir string, asJSON, quiet bool) int {
	list, err := orchestrate.List(stateDir)
	if err != nil {
		return fail(io, "swarm", 1, err)
	}
	if asJSON {
		out := []editor.SwarmSnapshot{}
		for _, st := range list {
			out = append(out, orchestrate.Summary(st))
		}
		return printJSON(io, out)
	}
	if len(list) == 0 {
		if !quiet {
			fmt.Fprintln(io.out, "no swarms (start one with: autarch swarm TASK)")
		}
		return 0
	}
	tw := newTable(io.out, "ID\tSTATUS\tROUND\tSTAGE\tARBITER\tPROPOSALS\tCOMMITS\tTOKENS\tBRANCH\tTASK")
	for _, st := range list {
		decided := 0
		for _, p := range st.Proposals {
			if p.Action != "" {
				decided++
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\t%d/%d decided\t%d\t%d\t%s\t%s\n", st.ID, st.Status, min(st.Round, st.Rounds), st.Rounds, st.Stage,
			st.Arbiter, decided, len(st.Proposals), len(st.Commits), st.Tokens, st.Branch, clipLine(st.Task, 60))
	}
	tw.Flush()
	return 0
}
