package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/editor"
)

func reviewVerb() verb {
	return verb{
		name:    "review",
		usage:   "autarch review [--root DIR] [--base REF] [--head REF] [--json] [model flags]",
		summary: "review the current branch (or any range) against a base with the review agent",
		run:     runReview,
	}
}

func runReview(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("review", io)
	f := addEngineFlags(fs)
	base := fs.String("base", "main", "the branch, tag or commit to compare against")
	head := fs.String("head", "HEAD", "the branch, tag or commit to review")
	asJSON := fs.Bool("json", false, "print the review card and comments as JSON")
	if code, ok := parseOperands(io, fs, reviewVerb(), args, 0, 0); !ok {
		return code
	}
	w, err := openWorkflows(ctx, io, f, true)
	if err != nil {
		return fail(io, "review", 1, err)
	}
	defer w.close()
	res, err := w.engine.Review(ctx, workflow.ReviewRequest{Base: *base, Head: *head})
	if errors.Is(err, workflow.ErrNothingToReview) {
		if *asJSON {
			return printJSON(io, map[string]any{"card": nil, "comments": []any{}, "nothingToReview": err.Error()})
		}
		fmt.Fprintln(io.out, err)
		return 0
	}
	if err != nil {
		return fail(io, "review", 1, err)
	}
	if *asJSON {
		return printJSON(io, res)
	}
	io.out = editor.Shown(io.out) // the reviewer's words and the agent's file names
	fmt.Fprintf(io.out, "%s..%s: %s\n%s\n", *base, *head, res.Card.Recommendation, res.Card.Summary)
	for _, c := range res.Comments {
		where := "review"
		switch {
		case c.StartLine > 0 && c.EndLine > c.StartLine:
			where = fmt.Sprintf("%s:%d-%d", c.FilePath, c.StartLine, c.EndLine)
		case c.StartLine > 0:
			where = fmt.Sprintf("%s:%d", c.FilePath, c.StartLine)
		case c.FilePath != "":
			where = c.FilePath
		}
		origin := "new"
		if c.PreExisting {
			origin = "pre-existing"
		}
		fmt.Fprintf(io.out, "%s [%s %s, %s] %s\n", where, c.Severity, c.Category, origin, c.Description)
	}
	return 0
}
