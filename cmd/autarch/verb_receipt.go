package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/receipt"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

func receiptVerb() verb {
	return verb{
		name:    "receipt",
		usage:   "autarch receipt show|verify [--root DIR] [--json] COMMIT",
		summary: "show a checkpoint's completion receipt, or run its quality gates again and check it holds",
		run:     runReceipt,
	}
}

// receiptUsage explains the verb's two forms.
const receiptUsage = `usage: autarch receipt show [--root DIR] [--json] COMMIT
       autarch receipt verify [--root DIR] [--json] COMMIT

show prints the completion receipt Autarch wrote on a checkpoint commit
(a git note under refs/notes/autarch). verify runs the receipt's quality
gates again in the sandbox, on a temporary worktree of the commit, and
exits 0 only when the receipt names this commit and tree and every result
holds; 1 with what differs otherwise.`

func runReceipt(ctx context.Context, io stdio, args []string) int {
	if len(args) == 0 || (args[0] != "show" && args[0] != "verify") {
		fmt.Fprintln(io.err, receiptUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return 0
		}
		return 2
	}
	sub := args[0]
	fs := newFlagSet("receipt "+sub, io)
	root := fs.String("root", ".", "the repository")
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := parseFlags(fs, args[1:]); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(io.err, receiptUsage)
		return 2
	}
	repo, err := git.Open(ctx, *root, git.Config{})
	if errors.Is(err, git.ErrNotRepository) {
		err = notRepository(*root)
	}
	if err != nil {
		return fail(io, "receipt", 1, err)
	}
	if sub == "show" {
		return showReceipt(ctx, io, repo, fs.Arg(0), *asJSON)
	}
	return verifyReceipt(ctx, io, repo, fs.Arg(0), *asJSON)
}

func showReceipt(ctx context.Context, io stdio, repo *git.Repo, commit string, asJSON bool) int {
	r, err := receipt.Read(ctx, repo, commit)
	if err != nil {
		return fail(io, "receipt show", 1, err)
	}
	if asJSON {
		return printStatusJSON(io, r, nil)
	}
	fmt.Fprint(editor.Shown(io.out), r.Text()) // findings name the agent's files and tests
	return 0
}

func verifyReceipt(ctx context.Context, io stdio, repo *git.Repo, commit string, asJSON bool) int {
	project, err := loadProject(io, "receipt verify", repo.Top())
	if err != nil {
		return fail(io, "receipt verify", 1, err)
	}
	policy, err := commandPolicy(ctx, stderrWarn(io, "receipt verify"))
	if err != nil {
		return fail(io, "receipt verify", 1, err)
	}
	policy = withNetwork(policy, project.Settings)
	gates := receipt.SessionGates(tools.SessionConfig{Mode: tools.ModeYolo, Commands: policy, GitCommonDir: repo.CommonDir(),
		Protected: project.Guardrails.ProtectedPaths()})
	res, err := receipt.Verify(ctx, repo, commit, receipt.Options{Gates: gates, Config: project.Quality.Gates})
	if err != nil {
		return fail(io, "receipt verify", 1, err)
	}
	if asJSON {
		printStatusJSON(io, res, nil)
	} else {
		fmt.Fprint(editor.Shown(io.out), res.Text())
	}
	if !res.OK {
		return 1
	}
	return 0
}
