package run

import (
	"fmt"
	"sync"

	"github.com/autarch-dev/autarch/agent"
)

// Usage is what one model call, or a run so far, used: tokens and money.
type Usage struct {
	PromptTokens     int64   `json:"promptTokens"`
	CompletionTokens int64   `json:"completionTokens"`
	Cost             float64 `json:"cost"` // in USD
}

// UsageOf is a model call's usage priced.
func UsageOf(u agent.Usage, p agent.Pricing) Usage {
	return Usage{PromptTokens: int64(u.PromptTokens), CompletionTokens: int64(u.CompletionTokens), Cost: p.Cost(u)}
}

// Tokens is prompt plus completion tokens.
func (u Usage) Tokens() int64 { return u.PromptTokens + u.CompletionTokens }

// Spent is what a run spent over its whole life: its usage and its model
// calls (iterations).
type Spent struct {
	Usage
	Iterations int `json:"iterations"`
}

// Add is s after one more model call of usage u.
func (s Spent) Add(u Usage) Spent {
	s.PromptTokens += u.PromptTokens
	s.CompletionTokens += u.CompletionTokens
	s.Cost += u.Cost
	s.Iterations++
	return s
}

// Budget is what a run may spend; a zero field is no limit.
type Budget struct {
	Tokens     int64   `json:"tokens,omitempty"`
	Iterations int     `json:"iterations,omitempty"`
	Dollars    float64 `json:"dollars,omitempty"`
}

// Limit names the limit of a budget a run reached.
type Limit string

// Limits of a budget.
const (
	LimitIterations Limit = "iterations"
	LimitTokens     Limit = "tokens"
	LimitDollars    Limit = "dollars"
)

// LimitError is a spent budget: the run stops, resumable with more.
type LimitError struct {
	Limit  Limit
	Spent  Spent
	Budget Budget
}

func (e *LimitError) Error() string {
	switch e.Limit {
	case LimitIterations:
		return fmt.Sprintf("iteration limit reached: %d model calls", e.Spent.Iterations)
	case LimitTokens:
		return fmt.Sprintf("token budget reached: %d of %d tokens", e.Spent.Tokens(), e.Budget.Tokens)
	}
	return fmt.Sprintf("budget cap reached: spent $%.4f of $%.4f", e.Spent.Cost, e.Budget.Dollars)
}

// Check is the first limit s reached (iterations, tokens, dollars), or
// nil.
func (b Budget) Check(s Spent) *LimitError {
	switch {
	case b.Iterations > 0 && s.Iterations >= b.Iterations:
		return &LimitError{Limit: LimitIterations, Spent: s, Budget: b}
	case b.Tokens > 0 && s.Tokens() >= b.Tokens:
		return &LimitError{Limit: LimitTokens, Spent: s, Budget: b}
	case b.Dollars > 0 && s.Cost >= b.Dollars:
		return &LimitError{Limit: LimitDollars, Spent: s, Budget: b}
	}
	return nil
}

// Grant is the budget of a run resumed after spending s: every limit s
// reached is raised to s plus more's; the others stay.
func (b Budget) Grant(s Spent, more Budget) Budget {
	if b.Tokens > 0 && s.Tokens() >= b.Tokens {
		b.Tokens = s.Tokens() + more.Tokens
	}
	if b.Iterations > 0 && s.Iterations >= b.Iterations {
		b.Iterations = s.Iterations + more.Iterations
	}
	if b.Dollars > 0 && s.Cost >= b.Dollars {
		b.Dollars = s.Cost + more.Dollars
	}
	return b
}

// Meter counts what a run spends against its budget; it is safe for the
// concurrent model calls of a run's agents. The dollar cap shared by a
// run's agents inside their loops is Agent's (agent.Meter).
type Meter struct {
	mu     sync.Mutex
	budget Budget
	spent  Spent
	agent  *agent.Meter
}

// NewMeter makes a meter of a run that has spent spent so far (a resumed
// run goes on counting) under budget b.
func NewMeter(b Budget, spent Spent) *Meter {
	return &Meter{budget: b, spent: spent, agent: agent.NewMeter(b.Dollars)}
}

// Agent is the meter's dollar cap as the agent loop takes it
// (agent.Config.Meter).
func (m *Meter) Agent() *agent.Meter { return m.agent }

// Record adds one model call's usage and returns the total spent.
func (m *Meter) Record(u Usage) Spent {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.spent = m.spent.Add(u)
	return m.spent
}

// Check is the limit the run reached, or nil (a *LimitError otherwise).
func (m *Meter) Check() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.budget.Check(m.spent); err != nil {
		return err
	}
	return nil
}

// Spent is what the run spent so far.
func (m *Meter) Spent() Spent {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.spent
}

// Budget is the run's budget.
func (m *Meter) Budget() Budget {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.budget
}
