package orchestrate

import (
	"context"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent"
)

// routed answers each request with the model of its agent (the explorers'
// system prompts name them).
type routed map[string]agent.Model

func (r routed) Complete(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	for name, m := range r {
		if strings.Contains(req.Messages[0].Content, "Your agent name is "+name+".") {
			return m.Complete(ctx, req, onText)
		}
	}
	return agent.Response{}, context.Canceled
}

func TestResearchFanOut(t *testing.T) {
	w := newWorld(t, "fanout")
	f := FanOut{Repo: w.repo, Explorers: 2, Model: routed{"explorer1": w.model("explorer1"), "explorer2": w.model("explorer2")},
		Connect: func(context.Context) (OpenEngine, func(), error) { return w.open, func() {}, nil }}
	ctx := context.Background()
	got, err := f.Research(ctx, "wf-1", "Add a Sub function")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Findings of 2 explorer sub-agents", `- explorer1.entry_point: {"agent":"explorer1","data":"main.go:3 main"`, `- explorer1.proposal:`, `- explorer2.tests:`} {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack %q:\n%s", want, got)
		}
	}
	// The same research again (a resumed workflow) reuses the finished
	// swarm: no model is asked (the scripts have no steps left).
	again, err := f.Research(ctx, "wf-1", "Add a Sub function")
	if err != nil || again != got {
		t.Errorf("second call: %v\n%s", err, again)
	}
	if _, err := (FanOut{Explorers: 1}).Research(ctx, "k", "t"); err == nil || !strings.Contains(err.Error(), "at least 2 explorers") {
		t.Errorf("one explorer: %v", err)
	}
}
