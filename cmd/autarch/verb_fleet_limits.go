package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/autarch-dev/autarch/fleet"
)

// sharedLimitFlags are the flags of autarch fleet limits and autarch
// fleet budget.
type sharedLimitFlags struct {
	rpm, tpm int
	usd      float64
	tokens   int64
	reset    bool
}

func addSharedLimitFlags(fs *flag.FlagSet) *sharedLimitFlags {
	sf := &sharedLimitFlags{}
	fs.IntVar(&sf.rpm, "rpm", 0, "requests per minute to each model endpoint, shared by every worker (limits; 0: none)")
	fs.IntVar(&sf.tpm, "tpm", 0, "tokens per minute to each model endpoint, shared by every worker (limits; 0: none)")
	fs.Float64Var(&sf.usd, "usd", 0, "the submitter's fleet budget in dollars (budget; 0: none)")
	fs.Int64Var(&sf.tokens, "tokens", 0, "the submitter's fleet budget in tokens (budget; 0: none)")
	fs.BoolVar(&sf.reset, "reset", false, "count the submitter's spend from zero again (budget)")
	return sf
}

// given reports whether any of names was on the command line.
func given(fs *flag.FlagSet, names ...string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) {
		for _, n := range names {
			found = found || f.Name == n
		}
	})
	return found
}

// fleetLimits sets the fleet's rate limit per model endpoint (with
// --rpm/--tpm) or prints it.
func fleetLimits(ctx context.Context, io stdio, f *fleet.Fleet, fs *flag.FlagSet, sf *sharedLimitFlags) int {
	if sf.rpm < 0 || sf.tpm < 0 {
		fmt.Fprintln(io.err, "autarch fleet limits: --rpm and --tpm are 0 (no limit) or more")
		return 2
	}
	if given(fs, "rpm", "tpm") {
		r, err := f.Rate(ctx)
		if err == nil {
			if given(fs, "rpm") {
				r.RPM = sf.rpm
			}
			if given(fs, "tpm") {
				r.TPM = sf.tpm
			}
			err = f.SetRate(ctx, r)
		}
		if err != nil {
			return fail(io, "fleet limits", 1, err)
		}
	}
	r, err := f.Rate(ctx)
	if err != nil {
		return fail(io, "fleet limits", 1, err)
	}
	fmt.Fprintf(io.out, "each model endpoint (host and model), shared by every worker: %s\n", r)
	if r.Zero() {
		fmt.Fprintln(io.err, "autarch: set one with: autarch fleet limits --rpm N --tpm N (a worker's own --rpm/--tpm take precedence)")
	}
	return 0
}

// fleetBudget sets a submitter's fleet budget (with --usd, --tokens or
// --reset) and prints it, or lists every submitter's.
func fleetBudget(ctx context.Context, io stdio, f *fleet.Fleet, fs *flag.FlagSet, sf *sharedLimitFlags, submitter string, asJSON bool) int {
	if submitter == "" && given(fs, "usd", "tokens", "reset") {
		fmt.Fprintln(io.err, "autarch fleet budget: name the submitter: autarch fleet budget SUBMITTER --usd X")
		return 2
	}
	var budgets []fleet.Budget
	var err error
	switch {
	case submitter == "":
		budgets, err = f.Budgets(ctx)
	case given(fs, "usd", "tokens", "reset"):
		var b fleet.Budget
		if b, err = f.Budget(ctx, submitter); err == nil {
			usd, tokens := b.USD, b.Tokens
			if given(fs, "usd") {
				usd = sf.usd
			}
			if given(fs, "tokens") {
				tokens = sf.tokens
			}
			b, err = f.SetBudget(ctx, submitter, usd, tokens, sf.reset)
			budgets = []fleet.Budget{b}
		}
	default:
		var b fleet.Budget
		b, err = f.Budget(ctx, submitter)
		budgets = []fleet.Budget{b}
	}
	if err != nil {
		return fail(io, "fleet budget", 1, err)
	}
	return printListing(io, budgets, asJSON, "no budgets (set one with: autarch fleet budget SUBMITTER --usd X)",
		"SUBMITTER\tUSD\tTOKENS\tSPENT USD\tSPENT TOKENS\tSTATE", func(b fleet.Budget) string {
			state := "within"
			if b.Over() != "" {
				state = "over: its runs wait in the queue"
			}
			return fmt.Sprintf("%s\t%s\t%s\t%.4f\t%d\t%s", b.Submitter, orNone(b.USD > 0, fmt.Sprintf("%.2f", b.USD)), orNone(b.Tokens > 0, fmt.Sprint(b.Tokens)), b.Spent.Cost, b.Spent.Tokens(), state)
		})
}

func orNone(set bool, s string) string {
	if !set {
		return "none"
	}
	return s
}

// printWaiting says why the runs left in the queue wait (a submitter over
// its budget).
func printWaiting(io stdio, runs []fleet.Run) {
	for _, r := range runs {
		if r.State == fleet.Queued && r.Reason != "" && r.Reason != "resumed" {
			fmt.Fprintf(io.out, "run %s: %s\n", r.ID, r.Reason)
		}
	}
}
