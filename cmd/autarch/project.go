package main

import (
	"context"
	"fmt"
	"os"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// loadProject reads the hooks and guardrails of the workspace at root for a
// verb that runs tools: guardrails always, hooks only from configuration
// the user trusts; ignored configuration is reported on stderr.
func loadProject(io stdio, verb, root string) (tools.Project, error) {
	store, err := trust.Open()
	if err != nil {
		return tools.Project{}, err
	}
	p, err := tools.LoadProject(root, store)
	if err != nil {
		return tools.Project{}, err
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(io.err, "autarch %s: %s\n", verb, w)
	}
	if msg := p.Untrusted(); msg != "" {
		fmt.Fprintf(io.err, "autarch %s: %s\n", verb, msg)
	}
	return p, nil
}

// commandPolicy picks how shell commands are confined, once: the user's
// choices from the environment and the sandbox that works here. When none
// does, warn says so once; the shell tool then refuses commands with the
// same explanation (the rest of the tools work).
func commandPolicy(ctx context.Context, warn func(string)) (tools.CommandPolicy, error) {
	p, err := tools.CommandPolicyFromEnv()
	if err != nil {
		return p, err
	}
	selected, st, err := tools.SelectSandbox(ctx, p)
	switch {
	case err != nil:
		warn(fmt.Sprintf("agents' shell commands will be refused: %v", err))
		return p, nil
	case !st.Available:
		warn(fmt.Sprintf("WARNING: agents' commands run UNCONFINED (you opted in with AUTARCH_ALLOW_UNSANDBOXED=1): %s", st))
	}
	return selected, nil
}

// stderrWarn warns on stderr, prefixed with the verb.
func stderrWarn(io stdio, verb string) func(string) {
	return func(msg string) { fmt.Fprintf(io.err, "autarch %s: %s\n", verb, msg) }
}

// withNetwork applies config.yaml's sandbox.network unless the user chose
// with AUTARCH_SANDBOX_NETWORK, and its commands.default_timeout.
func withNetwork(p tools.CommandPolicy, s tools.Config) tools.CommandPolicy {
	if s.Sandbox.Network != "" && os.Getenv("AUTARCH_SANDBOX_NETWORK") == "" {
		p.Network = s.Sandbox.Network
	}
	return s.Commands.Policy(p)
}
