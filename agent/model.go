package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

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
	// OnRetry, when not nil, hears of each failed attempt the model will
	// make again (a cut stream, a reset, 429, 5xx), before the wait.
	OnRetry func(Retry)
}

// Retry says that one attempt of a model call failed and when the next
// one starts. A call is retried only as a whole: nothing of the failed
// attempt's answer is used.
type Retry struct {
	// Cause is what happened, e.g. "model stream cut after 812 bytes".
	Cause string
	// Attempt is the retry about to be made (1 for the first retry), of Max.
	Attempt, Max int
	// Delay is the wait before it.
	Delay time.Duration
}

// String reads like "model stream cut after 812 bytes, retrying 2/5 in 3 s".
func (r Retry) String() string {
	return fmt.Sprintf("%s, retrying %d/%d in %s", r.Cause, r.Attempt, r.Max, seconds(r.Delay))
}

// seconds writes a wait for people: "3 s", "0.25 s", "12 ms".
func seconds(d time.Duration) string {
	switch {
	case d < 100*time.Millisecond:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.3g s", d.Seconds())
	}
	return fmt.Sprintf("%d s", int(d.Round(time.Second).Seconds()))
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

// DefaultNamer is a Model that names the model of requests that name none
// (e.g. from the editor's settings); "" means none is configured.
type DefaultNamer interface {
	DefaultModelName() string
}

// Model is a chat model with tool calling. onText, when not nil, receives
// streamed text as it arrives.
type Model interface {
	Complete(ctx context.Context, req Request, onText func(string)) (Response, error)
}
