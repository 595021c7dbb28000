package agent

import (
	"fmt"
	"sync"
)

// Pricing is the price per million tokens, in dollars.
type Pricing struct {
	PromptPerMillion     float64
	CompletionPerMillion float64
}

// Cost of some usage.
func (p Pricing) Cost(u Usage) float64 {
	return float64(u.PromptTokens)*p.PromptPerMillion/1e6 + float64(u.CompletionTokens)*p.CompletionPerMillion/1e6
}

// Meter accumulates usage and cost for a workflow (shared by its agents)
// and enforces an optional budget cap in dollars.
type Meter struct {
	mu      sync.Mutex
	usage   Usage
	cost    float64
	calls   int
	cap     float64
	warned  bool
	warnPct float64
}

// NewMeter makes a meter; capDollars ≤ 0 means no cap. The budget warning
// fires once at 80% of the cap.
func NewMeter(capDollars float64) *Meter {
	return &Meter{cap: capDollars, warnPct: 0.8}
}

// Record adds one call's usage and returns whether a warning is now due.
func (m *Meter) Record(u Usage, cost float64) (warn bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.usage = m.usage.Add(u)
	m.cost += cost
	m.calls++
	if m.cap > 0 && !m.warned && m.cost >= m.warnPct*m.cap {
		m.warned = true
		return true
	}
	return false
}

// Exceeded reports an error when the cap is reached.
func (m *Meter) Exceeded() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cap > 0 && m.cost >= m.cap {
		return fmt.Errorf("budget cap reached: spent $%.4f of $%.4f over %d model calls (%d prompt + %d completion tokens); raise the budget to continue", m.cost, m.cap, m.calls, m.usage.PromptTokens, m.usage.CompletionTokens)
	}
	return nil
}

// Totals returns the usage, cost and number of calls so far.
func (m *Meter) Totals() (Usage, float64, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.usage, m.cost, m.calls
}
