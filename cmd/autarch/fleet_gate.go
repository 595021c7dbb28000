package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/fleet"
)

// gateKey carries a fleet run's model gate to the verb that runs it:
// the worker calls autarch run and autarch job as the CLI does, and
// openWorkflows hands the gate to the model client it makes.
type gateKey struct{}

// withModelGate is ctx carrying the model gate of the run it belongs to.
func withModelGate(ctx context.Context, g openai.Gate) context.Context {
	return context.WithValue(ctx, gateKey{}, g)
}

// modelGate is the gate of ctx's fleet run (nil for local runs).
func modelGate(ctx context.Context) openai.Gate {
	g, _ := ctx.Value(gateKey{}).(openai.Gate)
	return g
}

// fleetGate is a fleet run's gate around every model request: the
// fleet's rate limit of the endpoint, shared by every worker, and the
// run's submitter's fleet budget.
type fleetGate struct {
	f *fleet.Fleet
	// rate is the worker's --rpm/--tpm; unset limits come from the
	// fleet's setting (autarch fleet limits).
	rate      fleet.Rate
	submitter string
	pricing   agent.Pricing
	// say tells the run's follower; stop stops the run (resumable).
	say  func(string)
	stop context.CancelCauseFunc
	log  *slog.Logger

	mu   sync.Mutex
	lim  fleet.Rate
	said time.Time
}

// noticeEvery bounds how often a run's events say that it waits for the
// rate limit.
const noticeEvery = 10 * time.Second

// Wait refuses the request of a submitter over its budget (and stops the
// run at this step) and waits for the endpoint's next slot. When the bus
// is away, the request goes without the shared limits (and says so in
// the worker's log): a NATS outage does not fail runs.
func (g *fleetGate) Wait(ctx context.Context, ep openai.Endpoint) error {
	var over *fleet.OverBudgetError
	switch err := g.f.CheckBudget(ctx, g.submitter); {
	case errors.As(err, &over):
		g.stop(over)
		return over
	case err != nil:
		g.log.Warn("fleet: the submitter's budget could not be read; the request goes on", "err", err)
	}
	lim := g.rate
	if set, err := g.f.Rate(ctx); err != nil {
		g.log.Warn("fleet: the fleet's rate limit could not be read; the worker's own applies", "err", err)
	} else {
		lim = lim.Or(set)
	}
	g.mu.Lock()
	g.lim = lim
	g.mu.Unlock()
	err := g.f.WaitRate(ctx, fleet.EndpointKey(ep.Host(), ep.Model), lim, func(d time.Duration) { g.notice(lim, ep, d) })
	if err != nil && ctx.Err() == nil {
		g.log.Warn("fleet: the shared rate limit could not be taken; the request goes on", "err", err)
		return nil
	}
	return err
}

func (g *fleetGate) notice(lim fleet.Rate, ep openai.Endpoint, d time.Duration) {
	g.mu.Lock()
	quiet := time.Since(g.said) < noticeEvery
	if !quiet {
		g.said = time.Now()
	}
	g.mu.Unlock()
	if !quiet {
		g.say(fmt.Sprintf("waiting for the fleet's rate limit (%s on %s %s): the next request goes in %s", lim, ep.Host(), ep.Model, d.Round(time.Millisecond)))
	}
}

// Spent adds the answer's tokens to the endpoint's window and its price
// to the submitter's spend.
func (g *fleetGate) Spent(ctx context.Context, ep openai.Endpoint, u agent.Usage) {
	ctx = context.WithoutCancel(ctx)
	g.mu.Lock()
	lim := g.lim
	g.mu.Unlock()
	if err := g.f.Spend(ctx, fleet.EndpointKey(ep.Host(), ep.Model), lim, u.PromptTokens+u.CompletionTokens); err != nil {
		g.log.Warn("fleet: adding tokens to the shared rate limit", "err", err)
	}
	if err := g.f.AddSpend(ctx, g.submitter, kernel.UsageOf(u, g.pricing)); err != nil {
		g.log.Warn("fleet: adding to the submitter's spend", "submitter", g.submitter, "err", err)
	}
}

// limitFlags are the worker's shared-limit flags: the endpoint's rate
// limit over the fleet's setting, and the prices that turn tokens into
// the submitters' dollars.
type limitFlags struct {
	rate    fleet.Rate
	pricing agent.Pricing
}

func addLimitFlags(fs *flag.FlagSet) *limitFlags {
	lf := &limitFlags{}
	fs.IntVar(&lf.rate.RPM, "rpm", 0, "requests per minute to the model endpoint, shared by every worker (0: the fleet's setting, autarch fleet limits)")
	fs.IntVar(&lf.rate.TPM, "tpm", 0, "tokens per minute to the model endpoint, shared by every worker (0: the fleet's setting)")
	fs.Float64Var(&lf.pricing.PromptPerMillion, "price-prompt", 0, "dollars per million prompt tokens (run budgets and the submitters' fleet budgets)")
	fs.Float64Var(&lf.pricing.CompletionPerMillion, "price-completion", 0, "dollars per million completion tokens")
	return lf
}

// check refuses negative limits.
func (lf *limitFlags) check() error {
	if lf.rate.RPM < 0 || lf.rate.TPM < 0 || lf.pricing.PromptPerMillion < 0 || lf.pricing.CompletionPerMillion < 0 {
		return errors.New("--rpm, --tpm and the prices are 0 or more")
	}
	return nil
}

// priced inserts the worker's prices before a run verb's task (its last
// argument), so that the run's own --budget counts dollars too.
func (lf *limitFlags) priced(args []string) []string {
	if lf == nil || len(args) == 0 || lf.pricing == (agent.Pricing{}) {
		return args
	}
	task := args[len(args)-1]
	out := append(args[:len(args)-1:len(args)-1], "--price-prompt", fmt.Sprint(lf.pricing.PromptPerMillion), "--price-completion", fmt.Sprint(lf.pricing.CompletionPerMillion))
	return append(out, task)
}

// submitterOf names the submitter: --submitter, else the NATS user of
// the URL, else $USER.
func submitterOf(flagValue, natsURL string) string {
	if s := strings.TrimSpace(flagValue); s != "" {
		return s
	}
	first, _, _ := strings.Cut(natsURL, ",")
	if u, err := url.Parse(first); err == nil && u.User != nil && u.User.Username() != "" {
		return u.User.Username()
	}
	return fleet.Submitter()
}
