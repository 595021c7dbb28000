package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"

	"golang.org/x/sys/unix"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
)

func toolVerb() verb {
	return verb{
		name:    "tool",
		usage:   "autarch tool [--root DIR] [--agent ROLE] [--mode yolo|confirm-sensitive|confirm-all] [--dry-run] (NAME 'JSON-ARGS' | --calls FILE.jsonl)",
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
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	m, err := tools.ParseMode(*mode)
	if err != nil {
		fmt.Fprintf(io.err, "autarch tool: %v\n", err)
		return 2
	}
	reg, err := registryFor(*role)
	if err != nil {
		fmt.Fprintf(io.err, "autarch tool: %v\n", err)
		return 2
	}
	project, err := loadProject(io, "tool", *root)
	if err != nil {
		fmt.Fprintf(io.err, "autarch tool: %v\n", err)
		return 1
	}
	servers, err := mcpManager(io, project)
	if err != nil {
		fmt.Fprintf(io.err, "autarch tool: %v\n", err)
		return 1
	}
	defer servers.Close()
	withMCP(ctx, io, "tool", servers, *role, reg)
	withWeb(io, "tool", project, *role, reg)
	if reg, err = project.Settings.Apply(reg, *role); err != nil {
		fmt.Fprintf(io.err, "autarch tool: %v\n", err)
		return 1
	}
	var rows []toolCall
	if *calls != "" {
		if fs.NArg() > 0 {
			fmt.Fprintln(io.err, "autarch tool: give either --calls FILE or NAME 'JSON-ARGS', not both")
			return 2
		}
		if rows, err = readCalls(*calls); err != nil {
			fmt.Fprintf(io.err, "autarch tool: %v\n", err)
			return 2
		}
	} else {
		if fs.NArg() != 2 {
			fmt.Fprintln(io.err, "usage: "+toolVerb().usage)
			return 2
		}
		rows = []toolCall{{Name: fs.Arg(0), Args: json.RawMessage(fs.Arg(1))}}
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
	stdinTTY := isTerminal(io.in)
	policy, err := tools.CommandPolicyFromEnv() // the sandbox is detected when a command first runs
	if err != nil {
		fmt.Fprintf(io.err, "autarch tool: %v\n", err)
		return 2
	}
	policy = withNetwork(policy, project.Settings)
	term := &editor.Terminal{In: io.in, Out: io.err, Interactive: stdinTTY,
		NoTTYHint: "pass --mode yolo to allow it, or --dry-run to record write calls without running them"}
	search := newCodeSearch(*root, term, true, slog.New(slog.NewTextHandler(io.err, &slog.HandlerOptions{Level: slog.LevelWarn})))
	defer search.Close()
	sess, err := tools.NewSession(tools.SessionConfig{
		Root: *root, Role: *role, Mode: m, DryRun: *dryRun, Workflow: true, Search: search,
		Editor:   term,
		Commands: policy, Protected: project.Guardrails.ProtectedPaths(),
		AllowDelete: project.Settings.Workspace.AllowDelete, AllowedOnly: project.Settings.Commands.AllowedOnly,
	})
	if err != nil {
		fmt.Fprintf(io.err, "autarch tool: %v\n", err)
		return 1
	}
	defer sess.Close()
	engine := tools.NewEngine(reg, project.Hooks, slog.New(slog.NewTextHandler(io.err, &slog.HandlerOptions{Level: slog.LevelWarn}))).WithGuardrails(project.Guardrails)
	failed := false
	for _, r := range rows {
		// A dry run's write calls write nothing: they need no confirmation.
		// Calls run one at a time, so the flag is this call's.
		t, _ := reg.Get(r.Name)
		term.AutoApprove = *dryRun && t.Kind() == tools.Write
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
		printDryRun(io, sess.DryRunSummary())
	}
	if failed {
		return 1
	}
	return 0
}

// printDryRun says what a dry run recorded: each write call, its target
// and its reason.
func printDryRun(io stdio, entries []tools.DryRunEntry) {
	if len(entries) == 0 {
		fmt.Fprintln(io.err, "dry run: no write call was recorded, so nothing would change")
		return
	}
	noun := "calls"
	if len(entries) == 1 {
		noun = "call"
	}
	fmt.Fprintf(io.err, "dry run: %d write %s recorded; nothing was written:\n", len(entries), noun)
	for _, e := range entries {
		var a struct {
			Path    string  `json:"path"`
			Content *string `json:"content"`
		}
		json.Unmarshal(e.Args, &a)
		target := a.Path
		if a.Content != nil {
			target += fmt.Sprintf(" (%d bytes)", len(*a.Content))
		}
		fmt.Fprintf(io.err, "  • %s %s: %s\n", e.Tool, target, e.Reason)
	}
}

// isTerminal reports whether r is an interactive terminal.
func isTerminal(r any) bool {
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
