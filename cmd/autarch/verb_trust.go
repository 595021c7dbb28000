package main

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/trust"
)

func trustVerb() verb {
	return verb{
		name:    "trust",
		usage:   "autarch trust [--root DIR] [--status | --revoke | --yes]",
		summary: "review and trust the repository's hooks (they run only from trusted configuration)",
		run:     runTrust,
	}
}

func runTrust(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("trust", io)
	root := fs.String("root", ".", "repository whose configuration to trust")
	status := fs.Bool("status", false, "only say whether the configuration is trusted (exit 1 when it is not)")
	revoke := fs.Bool("revoke", false, "forget the trust given to this repository")
	yes := fs.Bool("yes", false, "trust without asking (after you reviewed the files yourself)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	store, err := trust.Open()
	if err != nil {
		return fail(io, "trust", 1, err)
	}
	p, err := tools.LoadProject(*root, store)
	if err != nil {
		return fail(io, "trust", 1, err)
	}
	cfg := p.Config
	switch {
	case *revoke:
		if err := store.Revoke(cfg.Repo); err != nil {
			return fail(io, "trust", 1, err)
		}
		fmt.Fprintf(io.out, "trust revoked for %s: its hooks are ignored until you trust them again\n", cfg.Repo)
		return 0
	case cfg.Empty():
		fmt.Fprintf(io.out, "%s has no executable configuration (%s): nothing to trust\n", cfg.Repo, strings.Join(trust.ExecutableFiles(), ", "))
		return 0
	case p.Trust == trust.Trusted:
		fmt.Fprintf(io.out, "%s: %s trusted (digest %s)\n", cfg.Repo, strings.Join(cfg.Names(), ", "), cfg.Digest()[:12])
		return 0
	case *status:
		fmt.Fprintf(io.out, "%s: %s %s; run `autarch trust --root %s` to review and trust it\n", cfg.Repo, strings.Join(cfg.Names(), ", "), p.Trust, cfg.Repo)
		return 1
	}
	for _, f := range cfg.Files {
		fmt.Fprintf(io.out, "── %s ──\n%s\n", f.Name, strings.TrimRight(string(f.Data), "\n"))
	}
	if len(p.Ignored) > 0 {
		fmt.Fprintf(io.out, "These hooks would run on your machine, outside the sandbox:\n  %s\n", strings.Join(p.Ignored, "\n  "))
	}
	if !*yes {
		if !isTerminal(io.in) {
			fmt.Fprintln(io.err, "autarch trust: no terminal to ask on; review the files above and run again with --yes")
			return 1
		}
		fmt.Fprintf(io.err, "Trust this configuration of %s? [y/N] ", cfg.Repo)
		line, _ := bufio.NewReader(io.in).ReadString('\n')
		if d, ok := editor.ParseDecision(line, editor.Approval{}); !ok || d != editor.DecisionApprove {
			fmt.Fprintln(io.err, "not trusted: the configuration stays ignored")
			return 1
		}
	}
	if err := store.Trust(cfg); err != nil {
		return fail(io, "trust", 1, err)
	}
	fmt.Fprintf(io.out, "trusted %s in %s (digest %s); a change to them asks again\n", strings.Join(cfg.Names(), ", "), cfg.Repo, cfg.Digest()[:12])
	return 0
}
