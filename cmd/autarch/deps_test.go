package main

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// allowed lists, for every package of the module, the module's packages it
// may import directly (DESIGN.md's table, refined). A package missing here
// fails the test: a new package states its place in the layers. Because
// every entry only names packages lower in the list's order of layers,
// dependencies point down only; nothing but cmd/autarch imports server.
var allowed = map[string][]string{
	"cmd/autarch":          {"*"}, // wiring: the only place picking concrete implementations
	"cmd/autarch-scripted": {"agent/scripted"},
	// server is a transport: it talks to the application session (app)
	// only, and turns its typed events into notifications.
	"server": {"app", "agent/run", "agent/workflow", "editor", "tools", "index"},
	// app is the application session every transport talks to: the runs
	// of every kind (the fleet's too), one event stream, one list of runs,
	// one activity view.
	"app":        {"agent/job", "agent/run", "agent/workflow", "editor", "fleet", "swarm/orchestrate", "tools"},
	"codesearch": {"agent/run", "editor", "index", "tools", "tools/indexsearch", "workspace", "workspace/git"},
	// acp is a transport like server: ACP sessions over the application
	// session (app), its workflows' and jobs' records replayed.
	"acp": {"agent", "app", "agent/workflow", "agent/workflow/store", "agent/job", "editor", "tools"},
	"agent/workflow": {"agent", "agent/run", "agent/workflow/store", "editor", "tools", "tools/review", "tools/terminal", "tools/verify",
		"workspace/git", "workspace/trust", "index", "receipt"},
	"agent/workflow/store": {"agent/run", "tools/verify"},
	// agent/workflow/store/storetest opens a repository and its workflow
	// store for tests (imported only from tests).
	"agent/workflow/store/storetest": {"agent/workflow/store", "workspace/git"},
	// agent/job runs one coding-team agent (tools/team) over the project's
	// store, repository and wiring, given explicitly (job.Config).
	"agent/job": {"agent", "agent/run", "agent/workflow", "agent/workflow/store", "editor", "tools", "tools/team", "workspace/git", "receipt", "tools/verify"},
	"agent":     {"tools", "tools/terminal", "editor"},
	// agent/run is the run kernel under workflows, jobs and swarms: a
	// run's identity and status, its lock, stop and background group, its
	// meter, its event envelope and the questions waiting on a human.
	"agent/run": {"agent"},
	// agent/openai imports index for the embeddings client (UseEmbedderFromEnv);
	// DESIGN.md allows agent only: the embedder belongs beside the index.
	"agent/openai":      {"agent", "agent/run", "index"},
	"agent/scripted":    {},
	"tools":             {"editor", "tools/shellcmd", "tools/verify", "tools/websearch", "workspace", "workspace/git", "workspace/textsearch", "workspace/sandbox", "workspace/trust", "workspace/unidiff", "index", "langserver"},
	"tools/indexsearch": {"index", "tools", "workspace", "workspace/git"},
	// receipt writes, reads and re-checks the completion receipts of
	// checkpoint commits (git notes; issue 32).
	"receipt":           {"tools", "tools/verify", "workspace/git"},
	"tools/review":      {"tools"},
	"tools/team":        {"tools", "tools/verify", "workspace", "workspace/git", "workspace/unidiff"},
	"tools/terminal":    {"editor", "tools", "workspace/git"},
	"tools/mcp":         {"tools", "workspace/sandbox", "workspace/trust"},
	"tools/mcp/mcptest": {"tools"},
	"tools/shellcmd":    {},
	// langserver is the language-server client (issue 33): process and
	// lifecycle glue over go.lsp.dev; the tools start it in the sandbox.
	"langserver":           {},
	"tools/verify":         {"workspace", "workspace/sandbox"},
	"tools/websearch":      {},
	"editor":               {},
	"index":                {"workspace"},
	"workspace":            {"workspace/textsearch"},
	"workspace/textsearch": {},
	"scripts":              {},
	"workspace/git":        {"workspace/unidiff"},
	"workspace/unidiff":    {},
	"workspace/sandbox":    {"workspace/sandbox/internal/maskinit"},
	// workspace/sandbox/internal/maskinit is the mask helper, the first
	// program of a sandboxed command with many masked files.
	"workspace/sandbox/internal/maskinit": {},
	"workspace/trust":                     {},
	// workspace/treehash fingerprints a folder for tests (a dry run leaves
	// the repository byte-identical).
	"workspace/treehash": {},
	// workspace/git/gitattack plants attacks on host-side git for tests.
	"workspace/git/gitattack": {"internal/testkit"},
	// internal/testkit is the tests' shared kit (imported only from
	// tests): the fake editor, the txtar scenario runner, git helpers and
	// the wait helper. It stays low so that internal tests may use it.
	"internal/testkit": {"editor", "agent/scripted"},
	// fleet: workflows and jobs on a pool of workers over NATS JetStream:
	// the queue of runs, run records with leases, workers, run events.
	"fleet": {"agent/run", "swarm"},
	// swarm: shared context, leased queue, proposals and rate limits on
	// NATS JetStream, and the swarm tools.
	"swarm": {"tools", "workspace", "workspace/textsearch"},
	// swarm/orchestrate runs a swarm's rounds: agents over the engine's
	// tools, the arbiter, writes in the swarm's worktree, the transcript.
	"swarm/orchestrate": {"agent", "agent/run", "editor", "swarm", "tools", "tools/verify", "workspace", "workspace/git", "receipt"},

	// index/embedtrain trains the index's shipped code embedder (through
	// cmd/autarch-train-embedder, make train-embedder).
	"index/embedtrain":           {"index"},
	"cmd/autarch-train-embedder": {"index/embedtrain"},
}

// TestDependencyAllowList enforces the allow-list on every package's
// direct imports of the module (go list, tests excluded).
func TestDependencyAllowList(t *testing.T) {
	const mod = "github.com/autarch-dev/autarch/"
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(p.ImportPath, mod)
		allow, ok := allowed[rel]
		if !ok {
			t.Errorf("package %s is not in the dependency allow-list (cmd/autarch/deps_test.go): add it with what it may import", rel)
			continue
		}
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, mod)
			if !ok || slices.Contains(allow, "*") {
				continue
			}
			if dep == "server" {
				t.Errorf("%s imports server: only cmd/autarch may", rel)
			} else if !slices.Contains(allow, dep) {
				t.Errorf("%s imports %s: not in its allow-list %v", rel, dep, allow)
			}
		}
	}
}

// TestAllowListPointsDown: the allow-list itself has no cycle.
func TestAllowListPointsDown(t *testing.T) {
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(pkg string, path []string)
	visit = func(pkg string, path []string) {
		switch state[pkg] {
		case 1:
			t.Errorf("cycle in the allow-list: %s", strings.Join(append(path, pkg), " → "))
			return
		case 2:
			return
		}
		state[pkg] = 1
		for _, dep := range allowed[pkg] {
			if dep != "*" {
				visit(dep, append(path, pkg))
			}
		}
		state[pkg] = 2
	}
	for pkg := range allowed {
		visit(pkg, nil)
	}
}
