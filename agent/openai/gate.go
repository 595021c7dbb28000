package openai

import (
	"context"
	"net/url"

	"github.com/autarch-dev/autarch/agent"
)

// Gate is an optional hook around every request a Model sends
// (Config.Gate): a fleet worker's shared rate limits and its submitter's
// budget. Local runs have none.
type Gate interface {
	// Wait returns once a request to ep may be sent: at once, after a
	// wait (it must end when ctx ends), or with an error that refuses
	// the request (the call fails with it, not retried).
	Wait(ctx context.Context, ep Endpoint) error
	// Spent reports the tokens of a request whose answer was whole.
	Spent(ctx context.Context, ep Endpoint, u agent.Usage)
}

// Endpoint is where a request goes: the API's base URL and the model.
type Endpoint struct {
	BaseURL string
	Model   string
}

// Host is the base URL's host (with its port), or the base URL itself
// when it has none.
func (e Endpoint) Host() string {
	if u, err := url.Parse(e.BaseURL); err == nil && u.Host != "" {
		return u.Host
	}
	return e.BaseURL
}

// gateWait waits for the gate, if any, before an attempt.
func (m *Model) gateWait(ctx context.Context, model string) error {
	if m.cfg.Gate == nil {
		return nil
	}
	return m.cfg.Gate.Wait(ctx, Endpoint{BaseURL: m.baseURL(), Model: model})
}

// gateSpent tells the gate, if any, what a whole answer used.
func (m *Model) gateSpent(ctx context.Context, model string, u agent.Usage) {
	if m.cfg.Gate != nil {
		m.cfg.Gate.Spent(ctx, Endpoint{BaseURL: m.baseURL(), Model: model}, u)
	}
}
