package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// typed is a Tool whose parameters decode into P; every tool is built on it.
type typed[P any] struct {
	name, desc string
	kind       Kind
	schema     json.RawMessage
	resolved   *jsonschema.Resolved
	run        func(ctx context.Context, s *Session, p P) (Result, error)
	sensitive  func(p P) bool
}

// newTool builds a tool; a parameter struct without a schema is a
// programming error caught by the registry tests.
func newTool[P any](name, desc string, kind Kind, run func(context.Context, *Session, P) (Result, error)) *typed[P] {
	raw, resolved, err := schemaOf[P]()
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", name, err))
	}
	return &typed[P]{name: name, desc: desc, kind: kind, schema: raw, resolved: resolved, run: run}
}

func (t *typed[P]) Name() string            { return t.name }
func (t *typed[P]) Description() string     { return t.desc }
func (t *typed[P]) Schema() json.RawMessage { return t.schema }
func (t *typed[P]) Kind() Kind              { return t.kind }

// Sensitive decodes the arguments and asks the tool's policy.
func (t *typed[P]) Sensitive(args json.RawMessage) bool {
	if t.sensitive == nil {
		return t.kind == Write
	}
	var p P
	if json.Unmarshal(args, &p) != nil {
		return true
	}
	return t.sensitive(p)
}

// Validate checks the arguments against the schema.
func (t *typed[P]) Validate(args json.RawMessage) error { return validateArgs(t.resolved, args) }

func (t *typed[P]) Run(ctx context.Context, s *Session, args json.RawMessage) (Result, error) {
	var p P
	dec := json.NewDecoder(bytes.NewReader(args))
	if err := dec.Decode(&p); err != nil {
		return errorResult("invalid arguments: " + err.Error()), nil
	}
	return t.run(ctx, s, p)
}

// WithSchema is t offered to the model with another schema (a narrower
// one: an enum for one role, a property left out until it applies) while
// calls are still validated against t's own, so that what the shown schema
// leaves out is refused by t with a message that says why.
func WithSchema(t Tool, shown json.RawMessage) Tool { return shownSchema{Tool: t, shown: shown} }

type shownSchema struct {
	Tool
	shown json.RawMessage
}

func (t shownSchema) Schema() json.RawMessage { return t.shown }

// Validate keeps the tool's own check.
func (t shownSchema) Validate(args json.RawMessage) error {
	if v, ok := t.Tool.(validator); ok {
		return v.Validate(args)
	}
	return nil
}

// Define builds a tool from a parameter struct P (which must have a
// "reason" field; its tags give the JSON Schema) and a run function. Tools
// outside this package (terminal tools, sub-agents, review tools) use it.
func Define[P any](name, desc string, kind Kind, run func(context.Context, *Session, P) (Result, error)) Tool {
	return newTool(name, desc, kind, run)
}
