package orchestrate

import (
	"context"

	"github.com/autarch-dev/autarch/agent"
	kernel "github.com/autarch-dev/autarch/agent/run"
)

// metered is an agent's model on the run's meter: it refuses a call once
// the run's budget is spent (a *kernel.LimitError, checked before every
// model call, as a job's model does) and counts every answer's usage.
type metered struct {
	agent.Model
	meter *kernel.Meter
}

func (m metered) Complete(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	if err := m.meter.Check(); err != nil {
		return agent.Response{}, err
	}
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
