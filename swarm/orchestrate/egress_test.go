package orchestrate

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
)

// recordingModel answers every proposal approved and keeps the requests.
type recordingModel struct {
	mu   sync.Mutex
	reqs []string
}

func (m *recordingModel) Complete(_ context.Context, req agent.Request, _ func(string)) (agent.Response, error) {
	b, _ := json.Marshal(req.Messages)
	m.mu.Lock()
	m.reqs = append(m.reqs, string(b))
	m.mu.Unlock()
	return agent.Response{Message: agent.Message{Content: `{"decisions": [{"path": "config.txt", "action": "approve", "notes": "ok"}]}`}}, nil
}

// TestArbiterRequestHasNoSecret: an agent proposes a write carrying a
// secret value of the repository (and the line rules' kind); the arbiter
// model's request holds neither, with the orchestrator's egress gate or,
// without one, the line rules and the environment's secrets.
func TestArbiterRequestHasNoSecret(t *testing.T) {
	const secret = "Xk9fQ2mZ8pL4wR7tVb3n"
	envTok := "envTok-8Hq2Mx7Lp4Wz9"
	t.Setenv("ACME_DEPLOY_TOKEN", envTok)
	aws := "AKIA" + "QYLPMN5HHHFPZAM2"
	pending := []editor.SwarmProposal{{ID: "p1", Agent: "explorer", Path: "config.txt",
		Content: "token: " + secret + "\nci: " + envTok + "\naws_key = " + aws + "\n", Diff: "+token: " + secret + "\n+aws_key = " + aws + "\n"}}
	for _, tc := range []struct {
		name    string
		egress  *tools.Egress
		secrets []string
	}{
		{"orchestrator's gate", tools.NewEgress(context.Background(), nil, tools.EgressSources{Values: []string{secret}}), []string{secret, aws}},
		{"no gate given", nil, []string{envTok, aws}},
	} {
		m := &recordingModel{}
		arb := ModelArbiter{Model: m, ModelName: "arbiter", Egress: tc.egress}
		if _, err := arb.Decide(context.Background(), "s1", 1, pending, nil); err != nil {
			t.Fatal(err)
		}
		if len(m.reqs) == 0 {
			t.Fatalf("%s: the arbiter model was not asked", tc.name)
		}
		for _, r := range m.reqs {
			for _, s := range tc.secrets {
				if strings.Contains(r, s) {
					t.Errorf("%s: the arbiter's request carries a secret (%.6s…): %s", tc.name, s, r)
				}
			}
		}
	}
}
