package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"

	"github.com/autarch-dev/autarch/langserver"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/sandbox"
	"github.com/autarch-dev/autarch/workspace/trust"
)

func doctorVerb() verb {
	return verb{
		name:    "doctor",
		usage:   "autarch doctor [--root DIR] [--base-url URL] [--model NAME]",
		summary: "report the command sandbox, the trust of the repository's configuration and the model endpoint",
		run:     runDoctor,
	}
}

// runDoctor prints what confines commands here and what a user must do
// when something is missing; it exits 1 when commands would be refused.
func runDoctor(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("doctor", io)
	root := fs.String("root", ".", "repository or workspace to check")
	var endpoint endpointFlags
	endpoint.add(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	code := 0
	policy, err := tools.CommandPolicyFromEnv()
	if err != nil {
		return fail(io, "doctor", 2, err)
	}
	fmt.Fprintln(io.out, "== sandbox")
	b, st := sandbox.Detect(ctx, sandbox.Options{Limits: policy.Limits})
	switch {
	case b != nil:
		fmt.Fprint(io.out, b.Report(ctx))
	case policy.AllowUnsandboxed:
		fmt.Fprintf(io.out, "%s\ncommands run UNCONFINED: you opted in with AUTARCH_ALLOW_UNSANDBOXED=1\n", st)
	default:
		fmt.Fprintf(io.out, "%s\ncommands are REFUSED until bubblewrap works (apt-get install bubblewrap) or you opt in to unconfined commands with AUTARCH_ALLOW_UNSANDBOXED=1\n", st)
		code = 1
	}
	fmt.Fprintf(io.out, "network policy: %s (AUTARCH_SANDBOX_NETWORK=preflight|always|never)\n", policy.Network)
	fmt.Fprintln(io.out, policy.EnvReport(os.Environ()))
	reportLangServers(io.out, "== language servers (code intelligence tools)", langserver.Known())
	if !doctorModel(ctx, io, endpoint.baseURL, endpoint.model) {
		code = 1
	}
	fmt.Fprintln(io.out, "== repository configuration")
	store, err := trust.Open()
	if err != nil {
		fmt.Fprintf(io.out, "trust store: %v\n", err)
		return 1
	}
	p, err := tools.LoadProject(*root, store)
	if err != nil {
		fmt.Fprintf(io.out, "configuration: %v\n", err)
		return 1
	}
	switch p.Trust {
	case trust.None:
		fmt.Fprintf(io.out, "%s: no hooks or servers configured (%s)\n", p.Config.Repo, strings.Join(trust.ExecutableFiles(), ", "))
	case trust.Trusted:
		fmt.Fprintf(io.out, "%s: %s trusted (trust store %s)\n", p.Config.Repo, strings.Join(p.Config.Names(), ", "), store.Path())
		if n := len(p.Settings.LanguageServers); n > 0 {
			reportLangServers(io.out, "language servers configured (language_servers):", p.Settings.LangServerList()[:n])
		}
	default:
		fmt.Fprintln(io.out, p.Untrusted())
	}
	return code
}

// doctorModel reports the model endpoint: reachable, key accepted, the
// configured models listed. It returns false when no workflow could run.
func doctorModel(ctx context.Context, io stdio, baseURL, name string) bool {
	fmt.Fprintln(io.out, "== model")
	names := []string{}
	if name != "" {
		names = append(names, name)
	}
	roles := agent.RoleModelsFromEnv()
	for _, r := range slices.Sorted(maps.Keys(roles)) {
		names = append(names, roles[r])
	}
	if len(names) == 0 {
		fmt.Fprintln(io.out, "no model is configured: pass --model NAME or set AUTARCH_MODEL (with OPENAI_BASE_URL and OPENAI_API_KEY for an endpoint other than OpenAI's)")
		return false
	}
	c := openai.New(openai.Config{BaseURL: baseURL, APIKey: os.Getenv("OPENAI_API_KEY")}).Check(ctx, modelCheckTimeout)
	switch {
	case c.Err != nil:
		fmt.Fprintln(io.out, c.Err)
		return false
	case !c.Listed:
		fmt.Fprintf(io.out, "endpoint %s: reachable, key accepted; it lists no models (GET /models), so %s cannot be checked here\n", c.Endpoint, strings.Join(names, ", "))
		return true
	}
	fmt.Fprintf(io.out, "endpoint %s: reachable, key accepted, %s listed\n", c.Endpoint, plural(len(c.Models), "model"))
	ok := true
	for _, n := range slices.Compact(slices.Sorted(slices.Values(names))) {
		if c.HasModel(n) {
			fmt.Fprintf(io.out, "model %s: listed\n", n)
			continue
		}
		ok = false
		fmt.Fprintf(io.out, "model %s: NOT listed by the endpoint: check the name (--model, AUTARCH_MODEL or AUTARCH_MODEL_<ROLE>); it lists %s\n", n, clipList(c.Models, 10))
	}
	return ok
}

// clipList is the first n items, comma-separated, and how many more.
func clipList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
