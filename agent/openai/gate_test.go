package openai

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/scripted"
)

// countingGate lets every request go (or refuses them with refuse) and
// writes down what it saw.
type countingGate struct {
	refuse error

	mu    sync.Mutex
	waits []Endpoint
	spent int
}

func (g *countingGate) Wait(ctx context.Context, ep Endpoint) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.waits = append(g.waits, ep)
	return g.refuse
}

func (g *countingGate) Spent(ctx context.Context, ep Endpoint, u agent.Usage) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.spent++
}

// The gate is asked before every attempt (a retry is a request the
// provider counts too) with the endpoint's host and model, and hears of
// the whole answer's tokens once; a gate that refuses stops the call
// before anything is sent.
func TestGateIsAskedBeforeEveryAttempt(t *testing.T) {
	url, proxy := flaky(t, scripted.Status500, scripted.Pass)
	g := &countingGate{}
	cfg := fast(url, true)
	cfg.Gate = g
	m := New(cfg)
	req := request()
	if _, err := m.Complete(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if len(g.waits) != 2 || proxy.Injected()[scripted.Status500] != 1 {
		t.Fatalf("the gate was asked %d times for 2 attempts (%v)", len(g.waits), proxy.Injected())
	}
	if ep := g.waits[0]; ep.Model != req.Model || !strings.HasPrefix(ep.Host(), "127.0.0.1:") {
		t.Errorf("endpoint = %+v (host %q), want the request's model on the test server", ep, ep.Host())
	}
	if g.spent != 1 {
		t.Errorf("the gate heard of %d answers, want 1", g.spent)
	}

	refused := errors.New("the submitter is over its fleet budget")
	g2 := &countingGate{refuse: refused}
	cfg.Gate = g2
	before := proxy.Injected()[scripted.Pass]
	_, err := New(cfg).Complete(context.Background(), req, nil)
	if !errors.Is(err, refused) || len(g2.waits) != 1 || proxy.Injected()[scripted.Pass] != before {
		t.Errorf("refused call: err %v after %d waits, %d requests sent; want the refusal, nothing sent", err, len(g2.waits), proxy.Injected()[scripted.Pass]-before)
	}
}
