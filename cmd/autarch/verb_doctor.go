package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/sandbox"
	"github.com/autarch-dev/autarch/workspace/trust"
)

func doctorVerb() verb {
	return verb{
		name:    "doctor",
		usage:   "autarch doctor [--root DIR]",
		summary: "report the command sandbox and the trust of the repository's configuration",
		run:     runDoctor,
	}
}

// runDoctor prints what confines commands here and what a user must do
// when something is missing; it exits 1 when commands would be refused.
func runDoctor(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("doctor", io)
	root := fs.String("root", ".", "repository or workspace to check")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	code := 0
	policy, err := tools.CommandPolicyFromEnv()
	if err != nil {
		fmt.Fprintf(io.err, "autarch doctor: %v\n", err)
		return 2
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
	reportLangServers(io.out)
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
	default:
		fmt.Fprintln(io.out, p.Untrusted())
	}
	return code
}
