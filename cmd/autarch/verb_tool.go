package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/autarch-dev/autarch/codesearch"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/swarm"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/team"
)

func toolVerb() verb {
	return verb{
		name:    "tool",
		usage:   "autarch tool [--root DIR] [--agent ROLE | --as AGENT [--swarm ID] [--nats URL]] [--job-mode mechanic|genius] [--mode yolo|confirm-sensitive|confirm-all] [--dry-run] (NAME 'JSON-ARGS' | --calls FILE.jsonl)",
		summary: "run tool calls through the engine and print their JSON results",
		run:     runTool,
	}
}

func runTool(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("tool", io)
	root := fs.String("root", ".", "workspace directory the tool is confined to")
	role := fs.String("agent", "", "agent role whose tool set to use (default: every tool)")
	mode := fs.String("mode", string(tools.ModeConfirmSensitive), "confirmation mode: yolo, confirm-sensitive or confirm-all")
	dryRun := fs.Bool("dry-run", false, "record write tools instead of running them")
	calls := fs.String("calls", "", "JSONL file of {\"name\",\"args\"} rows run in order in one session")
	jobMode := fs.String("job-mode", string(team.Mechanic), "with --agent job: the ad-hoc job's mode, mechanic or genius")
	sw := addSwarmToolFlags(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	defer shortProcessGC()()
	m, err := tools.ParseMode(*mode)
	if err != nil {
		return fail(io, "tool", 2, err)
	}
	stdinTTY := isTerminal(io.in)
	term := &editor.Terminal{In: io.in, Out: io.err, Interactive: stdinTTY,
		NoTTYHint: "pass --mode yolo to allow it, or --dry-run to record write calls without running them"}
	reg, err := registryFor(*role)
	var job *cliJob
	if err == nil && *role == "job" {
		// 003-45: the team tools act for an ad-hoc job, as in a running one.
		if job, err = newCLIJob(*jobMode, term, io.err); err == nil {
			reg, err = team.Registry(job, team.Deps{})
		}
	}
	if err != nil {
		return fail(io, "tool", 2, err)
	}
	project, reg, closeServers, err := projectTools(ctx, io, "tool", *root, *role, reg)
	if err != nil {
		return fail(io, "tool", 1, err)
	}
	defer closeServers()
	if sw.as != "" { // only the swarm tools, as one agent (their args need no reason: see swarm.EnvelopeArgs)
		var closeSwarm func()
		if reg, closeSwarm, err = sw.registry(ctx, *root, project.Settings.Swarm, warnLog(io.err, *root)); err != nil {
			return fail(io, "tool", 1, err)
		}
		defer closeSwarm()
	}
	var rows []toolCall
	if *calls != "" {
		if fs.NArg() > 0 {
			fmt.Fprintln(io.err, "autarch tool: give either --calls FILE or NAME 'JSON-ARGS', not both")
			return 2
		}
		if rows, err = readCalls(*calls); err != nil {
			return fail(io, "tool", 2, err)
		}
	} else {
		if fs.NArg() != 2 {
			return usageError(io, toolVerb())
		}
		rows = []toolCall{{Name: fs.Arg(0), Args: json.RawMessage(fs.Arg(1))}}
	}
	if sw.as != "" {
		for i := range rows {
			rows[i].Args = swarm.EnvelopeArgs(rows[i].Args, "autarch tool --as "+sw.as)
		}
	}
	for i, r := range rows {
		if !reg.Has(r.Name) {
			fmt.Fprintf(io.err, "autarch tool: unknown tool %q (call %d); tools: %v\n", r.Name, i+1, reg.Names())
			return 2
		}
		if !json.Valid(r.Args) {
			fmt.Fprintf(io.err, "autarch tool: arguments of call %d (%s) are not valid JSON: %s\n", i+1, r.Name, r.Args)
			return 2
		}
	}
	policy, err := tools.CommandPolicyFromEnv() // the sandbox is detected when a command first runs
	if err != nil {
		return fail(io, "tool", 2, err)
	}
	policy = withNetwork(policy, project.Settings)
	search := newCodeSearch(*root, term, true, warnLog(io.err, *root))
	defer search.Close()
	sess, err := tools.NewSession(tools.SessionConfig{
		Root: *root, Role: *role, Mode: m, DryRun: *dryRun, Workflow: true, Search: searcher(search, *dryRun),
		Editor:   term,
		Commands: policy, Protected: project.Guardrails.ProtectedPaths(),
		AllowDelete: project.Settings.Workspace.AllowDelete, AllowedOnly: project.Settings.Commands.AllowedOnly,
		Context: job.toolContext(*root),
	})
	if err != nil {
		return fail(io, "tool", 1, err)
	}
	defer sess.Close()
	// A tool process reads each file about once: its gate remembers
	// verdicts by file version (and persists them), not by content hash.
	sess.Gate().ReadsOnce()
	// The gate's rules and persisted verdicts are made ready on the other
	// core while the calls start: a search waits for them only if it gets
	// there first, and the output's filtering rarely does.
	go sess.Gate().Prepare()
	engine := tools.NewEngine(reg, project.Hooks, warnLog(io.err, *root)).WithGuardrails(project.Guardrails)
	failed := false
	ctx = sw.hookContext(ctx)
	for _, r := range rows {
		res, err := engine.Call(ctx, sess, r.Name, r.Args)
		if err != nil {
			fmt.Fprintf(io.err, "autarch tool: %s: %v\n", r.Name, err)
			return 1
		}
		failed = failed || res.Failed
		if *calls == "" {
			fmt.Fprintln(io.out, res.Output)
			continue
		}
		var result any = res.Output
		if res.JSON {
			result = json.RawMessage(res.Output)
		}
		b, _ := json.Marshal(map[string]any{"name": r.Name, "result": result})
		fmt.Fprintln(io.out, string(b))
	}
	if *dryRun {
		fmt.Fprint(io.err, sess.DryRunSummary().Summary())
	}
	if failed {
		return 1
	}
	return 0
}

// searcher is a verb's semantic search: none in a dry run, whose index
// would be written under .git.
func searcher(s *codesearch.Search, dryRun bool) tools.Searcher {
	if dryRun {
		return nil
	}
	return s
}

// isTerminal reports whether r is an interactive terminal.
func isTerminal(r any) bool {
	if i, ok := r.(interface{ Interactive() bool }); ok { // a fleet run's submitter answers
		return i.Interactive()
	}
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

type toolCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

func readCalls(path string) ([]toolCall, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rows []toolCall
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r toolCall
		if err := json.Unmarshal(line, &r); err != nil || r.Name == "" {
			return nil, fmt.Errorf("%s:%d: want {\"name\": ..., \"args\": {...}}: %v", path, n, err)
		}
		if len(r.Args) == 0 {
			r.Args = json.RawMessage("{}")
		}
		rows = append(rows, r)
	}
	return rows, sc.Err()
}
