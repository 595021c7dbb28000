package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	kernel "github.com/autarch-dev/autarch/agent/run"
)

// The limits bucket's keys of a submitter: its caps (set by the fleet's
// operator) and its spend (added to by workers). They are apart, so that
// a worker's user may write the spend but not the caps (perms.go).
const (
	budgetPrefix = "budget."
	spentPrefix  = "spent."
)

// Budget is what a submitter's runs may spend across the fleet, and what
// they spent: each worker adds every model call's usage (priced by the
// worker) under a revision check. A zero cap is no limit.
type Budget struct {
	Submitter string  `json:"submitter"`
	USD       float64 `json:"usd,omitempty"`
	Tokens    int64   `json:"tokens,omitempty"`
	// Spent is the submitter's runs' usage since it was first counted
	// (or reset).
	Spent kernel.Usage `json:"spent"`
}

// caps is a submitter's budget record; spend its spend record.
type caps struct {
	Submitter string    `json:"submitter"`
	USD       float64   `json:"usd,omitempty"`
	Tokens    int64     `json:"tokens,omitempty"`
	Updated   time.Time `json:"updated"`
}

type spend struct {
	Submitter string       `json:"submitter"`
	Spent     kernel.Usage `json:"spent"`
	Updated   time.Time    `json:"updated"`
}

// Over says how the submitter is over its budget ("" when it is not).
func (b Budget) Over() string {
	switch {
	case b.USD > 0 && b.Spent.Cost >= b.USD:
		return fmt.Sprintf("%s is over its fleet budget: spent $%.4f of $%.4f", b.Submitter, b.Spent.Cost, b.USD)
	case b.Tokens > 0 && b.Spent.Tokens() >= b.Tokens:
		return fmt.Sprintf("%s is over its fleet budget: spent %d of %d tokens", b.Submitter, b.Spent.Tokens(), b.Tokens)
	}
	return ""
}

// OverBudgetError refuses a run's claim or its next model call: its
// submitter spent its fleet budget.
type OverBudgetError struct{ Budget Budget }

func (e *OverBudgetError) Error() string {
	return e.Budget.Over() + "; raise it with: autarch fleet budget " + e.Budget.Submitter + " --usd N (or --tokens N, or --reset)"
}

// SetBudget sets a submitter's caps (0: none); reset also zeroes what it
// spent so far.
func (f *Fleet) SetBudget(ctx context.Context, submitter string, usd float64, tokens int64, reset bool) (Budget, error) {
	if strings.TrimSpace(submitter) == "" {
		return Budget{}, errors.New("fleet: name the submitter whose budget to set (as autarch submit --submitter names it)")
	}
	if usd < 0 || tokens < 0 {
		return Budget{}, errors.New("fleet: a budget is 0 (no limit) or more")
	}
	data, _ := json.Marshal(caps{Submitter: submitter, USD: usd, Tokens: tokens, Updated: f.now()})
	if _, err := f.limits.Put(ctx, budgetPrefix+workerKey(submitter), data); err != nil {
		return Budget{}, fmt.Errorf("fleet: recording the budget of %s: %w", submitter, err)
	}
	if reset {
		data, _ := json.Marshal(spend{Submitter: submitter, Updated: f.now()})
		if _, err := f.limits.Put(ctx, spentPrefix+workerKey(submitter), data); err != nil {
			return Budget{}, fmt.Errorf("fleet: resetting the spend of %s: %w", submitter, err)
		}
	}
	return f.Budget(ctx, submitter)
}

// Budget reads a submitter's budget and spend (zero when none was set).
func (f *Fleet) Budget(ctx context.Context, submitter string) (Budget, error) {
	b := Budget{Submitter: submitter}
	var c caps
	if _, err := f.readLimit(ctx, budgetPrefix+workerKey(submitter), &c); err != nil {
		return b, err
	}
	var s spend
	if _, err := f.readLimit(ctx, spentPrefix+workerKey(submitter), &s); err != nil {
		return b, err
	}
	b.USD, b.Tokens, b.Spent = c.USD, c.Tokens, s.Spent
	return b, nil
}

// Budgets lists every submitter with a budget or a spend, by name.
func (f *Fleet) Budgets(ctx context.Context) ([]Budget, error) {
	names := map[string]bool{}
	err := eachKey(ctx, f.limits, "budgets", func(k string) error {
		if !strings.HasPrefix(k, budgetPrefix) && !strings.HasPrefix(k, spentPrefix) {
			return nil
		}
		var rec struct {
			Submitter string `json:"submitter"`
		}
		if _, err := f.readLimit(ctx, k, &rec); err == nil && rec.Submitter != "" {
			names[rec.Submitter] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []Budget
	for name := range names {
		b, err := f.Budget(ctx, name)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b Budget) int { return strings.Compare(a.Submitter, b.Submitter) })
	return out, nil
}

// AddSpend adds a model call's usage to the submitter's spend under a
// revision check. A submitter without a budget has its spend counted too.
func (f *Fleet) AddSpend(ctx context.Context, submitter string, u kernel.Usage) error {
	if submitter == "" {
		return nil
	}
	return changeRecord(ctx, f.limits, spentPrefix+workerKey(submitter), "the spend of "+submitter, f.now, func(s *spend, now time.Time) {
		s.Submitter, s.Updated = submitter, now
		s.Spent.PromptTokens += u.PromptTokens
		s.Spent.CompletionTokens += u.CompletionTokens
		s.Spent.Cost += u.Cost
	})
}

// CheckBudget is an *OverBudgetError when the submitter is over its
// budget, nil otherwise (and for runs without a submitter).
func (f *Fleet) CheckBudget(ctx context.Context, submitter string) error {
	if submitter == "" {
		return nil
	}
	b, err := f.Budget(ctx, submitter)
	if err != nil {
		return err
	}
	if b.Over() != "" {
		return &OverBudgetError{Budget: b}
	}
	return nil
}

// readLimit reads a record of the limits bucket into v; its revision is
// 0 when there is none.
func (f *Fleet) readLimit(ctx context.Context, key string, v any) (uint64, error) {
	e, err := f.limits.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("fleet: reading %s: %w", key, err)
	}
	if err := json.Unmarshal(e.Value(), v); err != nil {
		return 0, fmt.Errorf("fleet: the record %s is not valid (set it again with autarch fleet budget or limits): %w", key, err)
	}
	return e.Revision(), nil
}

// budgetRecheck is how long a run whose submitter is over budget stays
// in the queue before a worker looks at its budget again.
func (f *Fleet) budgetRecheck() time.Duration { return min(f.lease/3, 10*time.Second) }

// holdOverBudget writes on a run left in the queue why no worker takes
// it (autarch fleet status shows it); a run that is no longer queued or
// already says so is left as it is.
func (f *Fleet) holdOverBudget(ctx context.Context, id string, over *OverBudgetError) {
	why := "waiting in the queue: " + over.Error() + ", and a worker takes it"
	f.update(ctx, id, func(r *Run) error {
		if r.Reason == why || r.State.Ended() {
			return errDone
		}
		if r.State == Running { // a lease ran out: the run waits again
			r.State, r.Worker, r.Lease = Queued, "", time.Time{}
		}
		r.Reason = why
		return nil
	})
}
