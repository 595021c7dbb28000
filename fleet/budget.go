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

// budgetPrefix starts the limits bucket's keys of submitters' budgets.
const budgetPrefix = "budget."

// Budget is what a submitter's runs may spend across the fleet, and what
// they spent: each worker adds every model call's usage (priced by the
// worker) under a revision check. A zero cap is no limit.
type Budget struct {
	Submitter string  `json:"submitter"`
	USD       float64 `json:"usd,omitempty"`
	Tokens    int64   `json:"tokens,omitempty"`
	// Spent is the submitter's runs' usage since the budget was set (or
	// reset).
	Spent   kernel.Usage `json:"spent"`
	Updated time.Time    `json:"updated"`
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

func budgetKey(submitter string) string { return budgetPrefix + workerKey(submitter) }

// SetBudget sets a submitter's caps (0: none); reset also zeroes what it
// spent so far.
func (f *Fleet) SetBudget(ctx context.Context, submitter string, usd float64, tokens int64, reset bool) (Budget, error) {
	if strings.TrimSpace(submitter) == "" {
		return Budget{}, errors.New("fleet: name the submitter whose budget to set (as autarch submit --submitter names it)")
	}
	if usd < 0 || tokens < 0 {
		return Budget{}, errors.New("fleet: a budget is 0 (no limit) or more")
	}
	return f.changeBudget(ctx, submitter, func(b *Budget) {
		b.USD, b.Tokens = usd, tokens
		if reset {
			b.Spent = kernel.Usage{}
		}
	})
}

// Budget reads a submitter's budget (a zero Budget when none was set).
func (f *Fleet) Budget(ctx context.Context, submitter string) (Budget, error) {
	b, _, err := f.readBudget(ctx, submitter)
	return b, err
}

// Budgets lists every submitter's budget, by name.
func (f *Fleet) Budgets(ctx context.Context) ([]Budget, error) {
	keys, err := f.limits.ListKeysFiltered(ctx, budgetPrefix+">")
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("fleet: listing budgets: %w", err)
	}
	var out []Budget
	for k := range keys.Keys() {
		e, err := f.limits.Get(ctx, k)
		if err != nil {
			continue // deleted since listed
		}
		var b Budget
		if json.Unmarshal(e.Value(), &b) == nil {
			out = append(out, b)
		}
	}
	slices.SortFunc(out, func(a, b Budget) int { return strings.Compare(a.Submitter, b.Submitter) })
	return out, nil
}

// AddSpend adds a model call's usage to the submitter's spend; it returns
// the budget after it. A submitter without a budget has its spend counted
// too (a budget set later starts from it, unless reset).
func (f *Fleet) AddSpend(ctx context.Context, submitter string, u kernel.Usage) (Budget, error) {
	if submitter == "" {
		return Budget{}, nil
	}
	return f.changeBudget(ctx, submitter, func(b *Budget) {
		b.Spent.PromptTokens += u.PromptTokens
		b.Spent.CompletionTokens += u.CompletionTokens
		b.Spent.Cost += u.Cost
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

func (f *Fleet) readBudget(ctx context.Context, submitter string) (Budget, uint64, error) {
	b := Budget{Submitter: submitter}
	e, err := f.limits.Get(ctx, budgetKey(submitter))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return b, 0, nil
	}
	if err != nil {
		return b, 0, fmt.Errorf("fleet: reading the budget of %s: %w", submitter, err)
	}
	if err := json.Unmarshal(e.Value(), &b); err != nil {
		return Budget{Submitter: submitter}, e.Revision(), fmt.Errorf("fleet: the budget of %s is not valid (set it again with autarch fleet budget): %w", submitter, err)
	}
	return b, e.Revision(), nil
}

// changeBudget changes a submitter's budget with fn under a revision
// check, again with the fresh record when another worker wrote first.
func (f *Fleet) changeBudget(ctx context.Context, submitter string, fn func(*Budget)) (Budget, error) {
	for range 100 {
		b, rev, err := f.readBudget(ctx, submitter)
		if err != nil && rev == 0 {
			return b, err
		}
		fn(&b)
		b.Submitter, b.Updated = submitter, f.now()
		data, _ := json.Marshal(b)
		if rev == 0 {
			_, err = f.limits.Create(ctx, budgetKey(submitter), data)
		} else {
			_, err = f.limits.Update(ctx, budgetKey(submitter), data, rev)
		}
		if err == nil {
			return b, nil
		}
		if !isWrongRevision(err) && !errors.Is(err, jetstream.ErrKeyExists) {
			return b, fmt.Errorf("fleet: recording the budget of %s: %w", submitter, err)
		}
		if err := ctx.Err(); err != nil {
			return b, err
		}
	}
	return Budget{}, fmt.Errorf("fleet: the budget of %s changes too often to update; try again", submitter)
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
