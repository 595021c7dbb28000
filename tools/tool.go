// Package tools holds the Tool interface, the Registry, the engine pipeline
// every call goes through (lookup → validate → guardrails → pre-hooks →
// confirmation → dry-run → execute → post-hooks → log), and the tools
// themselves, one file and one embedded description per tool.
package tools

import (
	"context"
	"encoding/json"
)

// Kind classifies a tool for the engine: read-only tools may run in
// parallel and are executed during dry-run; write tools run sequentially and
// are only recorded during dry-run; terminal tools end the agent's turn.
type Kind int

// Tool kinds.
const (
	ReadOnly Kind = iota
	Write
	Terminal
)

// Tool is one tool the model can call.
type Tool interface {
	// Name is the tool's unique name, e.g. "read_file".
	Name() string
	// Description is the text given to the model (embedded from a .md file).
	Description() string
	// Schema is the JSON Schema of the parameters (an object schema that
	// includes the required "reason").
	Schema() json.RawMessage
	// Kind tells the engine how the tool may be scheduled.
	Kind() Kind
	// Sensitive reports whether these arguments need confirmation in
	// confirm-sensitive mode (shell decides per command).
	Sensitive(args json.RawMessage) bool
	// Run executes the call. The model's mistakes are returned as a Result
	// (Failed set); a Go error means broken infrastructure. Run never panics.
	Run(ctx context.Context, s *Session, args json.RawMessage) (Result, error)
}

// Result is what a tool call gives back to the model.
type Result struct {
	// Output is the text handed to the model: a JSON document when JSON is
	// true, plain text otherwise (read_file's content, for example).
	Output string `json:"output"`
	// JSON tells whether Output is a JSON value.
	JSON bool `json:"json"`
	// Failed marks a result that reports a failure the model must resolve
	// (an error result, a non-zero shell exit, a failed edit). Completion
	// validation counts these.
	Failed bool `json:"failed"`
	// Refused marks a failed result of a call that was not run because
	// something said no: a guardrail, a blocking hook, the confirmation
	// policy or the person, the secret gate, the workspace's allow_delete.
	Refused bool `json:"refused,omitempty"`
}
