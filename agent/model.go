package agent

import (
	"context"
	"encoding/json"

	"github.com/autarch-dev/autarch/tools"
)

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one message of a conversation with the model.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is a call the model asked for.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// Request is one chat completion request.
type Request struct {
	Model    string
	Messages []Message
	// Tools are offered natively; empty in JSON-envelope mode.
	Tools []tools.FunctionSchema
}

// Usage counts tokens of one call.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Add sums usage.
func (u Usage) Add(o Usage) Usage {
	return Usage{u.PromptTokens + o.PromptTokens, u.CompletionTokens + o.CompletionTokens}
}

// Response is the model's answer: an assistant message with text and/or
// tool calls.
type Response struct {
	Message      Message
	Usage        Usage
	FinishReason string
}

// Model is a chat model with tool calling. onText, when not nil, receives
// streamed text as it arrives.
type Model interface {
	Complete(ctx context.Context, req Request, onText func(string)) (Response, error)
}
