package orchestrate

import (
	"context"

	"github.com/autarch-dev/autarch/agent"
	kernel "github.com/autarch-dev/autarch/agent/run"
)

// metered counts every answer's usage on the run's meter.
type metered struct {
	agent.Model
	meter *kernel.Meter
}

func (m metered) Complete(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	resp, err := m.Model.Complete(ctx, req, onText)
	if err == nil {
		m.meter.Record(kernel.UsageOf(resp.Usage, agent.Pricing{}))
	}
	return resp, err
}

// textModel is a model without native tool calling: the conversation
// reaches it as text (asText), its calls as the JSON envelope.
type textModel struct{ agent.Model }

func (m textModel) Complete(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	req.Messages = asText(req.Messages)
	return m.Model.Complete(ctx, req, onText)
}
