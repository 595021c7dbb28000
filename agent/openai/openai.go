// Package openai implements agent.Model over openai-go against any
// OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio, OpenRouter).
package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/autarch-dev/autarch/agent"
)

// Config configures the endpoint.
type Config struct {
	// BaseURL of the OpenAI-compatible API ("" for OpenAI's).
	BaseURL string
	// APIKey ("" is allowed for local servers such as Ollama).
	APIKey string
	// Stream uses server-sent events (text arrives as it is generated).
	Stream bool
	// AttemptTimeout bounds each attempt (default 5 minutes).
	AttemptTimeout time.Duration
	// MaxRetries on 408/409/429/5xx and connection errors (0: default 3;
	// negative: none).
	MaxRetries int
}

// Model is an agent.Model over the chat completions API.
type Model struct {
	client oai.Client
	stream bool
}

var _ agent.Model = (*Model)(nil)

// New makes a model client.
func New(cfg Config) *Model {
	if cfg.AttemptTimeout <= 0 {
		cfg.AttemptTimeout = 5 * time.Minute
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = 3
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	opts := []option.RequestOption{
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(cfg.MaxRetries),
		option.WithRequestTimeout(cfg.AttemptTimeout),
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	return &Model{client: oai.NewClient(opts...), stream: cfg.Stream}
}

// Complete sends one chat completion request.
func (m *Model) Complete(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	params, err := toParams(req)
	if err != nil {
		return agent.Response{}, err
	}
	if !m.stream {
		c, err := m.client.Chat.Completions.New(ctx, params)
		if err != nil {
			return agent.Response{}, fmt.Errorf("chat completion: %w", err)
		}
		return fromCompletion(c)
	}
	params.StreamOptions = oai.ChatCompletionStreamOptionsParam{IncludeUsage: oai.Bool(true)}
	stream := m.client.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()
	acc := oai.ChatCompletionAccumulator{}
	for stream.Next() {
		chunk := stream.Current()
		acc.AddChunk(chunk)
		if onText != nil && len(chunk.Choices) > 0 && chunk.Choices[0].Delta.Content != "" {
			onText(chunk.Choices[0].Delta.Content)
		}
	}
	if err := stream.Err(); err != nil {
		return agent.Response{}, fmt.Errorf("chat completion stream: %w", err)
	}
	return fromCompletion(&acc.ChatCompletion)
}

func toParams(req agent.Request) (oai.ChatCompletionNewParams, error) {
	p := oai.ChatCompletionNewParams{Model: shared.ChatModel(req.Model)}
	for _, m := range req.Messages {
		switch m.Role {
		case agent.RoleSystem:
			p.Messages = append(p.Messages, oai.SystemMessage(m.Content))
		case agent.RoleUser:
			p.Messages = append(p.Messages, oai.UserMessage(m.Content))
		case agent.RoleTool:
			p.Messages = append(p.Messages, oai.ToolMessage(m.Content, m.ToolCallID))
		case agent.RoleAssistant:
			msg := oai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" {
				msg.Content.OfString = oai.String(m.Content)
			}
			for _, c := range m.ToolCalls {
				msg.ToolCalls = append(msg.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: string(c.Args)},
					},
				})
			}
			p.Messages = append(p.Messages, oai.ChatCompletionMessageParamUnion{OfAssistant: &msg})
		default:
			return p, fmt.Errorf("message role %q is not one of system, user, assistant, tool", m.Role)
		}
	}
	for _, t := range req.Tools {
		var params shared.FunctionParameters
		if err := json.Unmarshal(t.Function.Parameters, &params); err != nil {
			return p, fmt.Errorf("tool %s schema: %w", t.Function.Name, err)
		}
		p.Tools = append(p.Tools, oai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Function.Name,
			Description: oai.String(t.Function.Description),
			Parameters:  params,
		}))
	}
	return p, nil
}

// fromCompletion reads the first choice. Tool calling is decided by the
// presence of tool calls, not the finish reason (Ollama ends with "stop").
func fromCompletion(c *oai.ChatCompletion) (agent.Response, error) {
	if len(c.Choices) == 0 {
		return agent.Response{}, fmt.Errorf("chat completion has no choices")
	}
	ch := c.Choices[0]
	resp := agent.Response{
		Message:      agent.Message{Role: agent.RoleAssistant, Content: ch.Message.Content},
		FinishReason: ch.FinishReason,
		Usage:        agent.Usage{PromptTokens: int(c.Usage.PromptTokens), CompletionTokens: int(c.Usage.CompletionTokens)},
	}
	for i, tc := range ch.Message.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i+1)
		}
		args := json.RawMessage(tc.Function.Arguments)
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, agent.ToolCall{ID: id, Name: tc.Function.Name, Args: args})
	}
	return resp, nil
}
