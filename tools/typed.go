package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// typed is a Tool whose parameters decode into P; every tool is built on it.
type typed[P any] struct {
	name, desc string
	kind       Kind
	// schema and resolved are derived on first use (loadSchema): a
	// process that runs one tool (autarch tool grep) does not build
	// every tool's schema.
	schemaOnce sync.Once
	schema     json.RawMessage
	resolved   *jsonschema.Resolved
	run        func(ctx context.Context, s *Session, p P) (Result, error)
	sensitive  func(p P) bool
	traits     Traits
}

// newTool builds a tool; a parameter struct without a schema is a
// programming error caught by the registry tests.
func newTool[P any](name, desc string, kind Kind, run func(context.Context, *Session, P) (Result, error)) *typed[P] {
	return &typed[P]{name: name, desc: desc, kind: kind, run: run}
}

// loadSchema derives the schema once.
func (t *typed[P]) loadSchema() {
	t.schemaOnce.Do(func() {
		raw, resolved, err := schemaOf[P]()
		if err != nil {
			panic(fmt.Sprintf("tool %s: %v", t.name, err))
		}
		t.schema, t.resolved = raw, resolved
	})
}

func (t *typed[P]) Name() string            { return t.name }
func (t *typed[P]) Description() string     { return t.desc }
func (t *typed[P]) Schema() json.RawMessage { t.loadSchema(); return t.schema }
func (t *typed[P]) Kind() Kind              { return t.kind }
func (t *typed[P]) Traits() Traits          { return t.traits }

// declare sets the tool's traits.
func (t *typed[P]) declare(effect Effect, category Category) *typed[P] {
	t.traits = Traits{Effect: effect, Category: category}
	return t
}

// touchArgs are the arguments that name a file and, for edits, the
// change: the parameter names every tool uses for them.
type touchArgs struct {
	Path      string  `json:"path"`
	FilePath  string  `json:"file_path"`
	Line      int     `json:"start_line"`
	OldString string  `json:"oldString"`
	NewString string  `json:"newString"`
	Content   *string `json:"content"`
	Edits     []struct {
		OldString string `json:"oldString"`
		NewString string `json:"newString"`
	} `json:"edits"`
}

// Touches reads the file a call names (path, or file_path with
// start_line) and, for an edit, its replacements (oldString/newString,
// content, edits).
func (t *typed[P]) Touches(args json.RawMessage) []Touch {
	var a touchArgs
	if len(args) == 0 || json.Unmarshal(args, &a) != nil {
		return nil
	}
	p := a.Path
	if p == "" {
		p = a.FilePath
	}
	if p == "" {
		return nil
	}
	touch := Touch{Path: p, Line: max(a.Line, 0)}
	if t.traits.Effect == EffectEdit {
		switch {
		case len(a.Edits) > 0:
			for _, e := range a.Edits {
				touch.Changes = append(touch.Changes, Replacement{Old: e.OldString, New: e.NewString})
			}
		case a.Content != nil:
			touch.Changes = []Replacement{{New: *a.Content}}
		case a.OldString != "" || a.NewString != "":
			touch.Changes = []Replacement{{Old: a.OldString, New: a.NewString}}
		}
	}
	return []Touch{touch}
}

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
func (t *typed[P]) Validate(args json.RawMessage) error {
	t.loadSchema()
	return validateArgs(t.resolved, args)
}

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
// outside this package (terminal tools, sub-agents, review tools) use it,
// through DefineWith to declare their traits.
func Define[P any](name, desc string, kind Kind, run func(context.Context, *Session, P) (Result, error)) Tool {
	return newTool(name, desc, kind, run)
}

// DefineWith is Define for a tool with these traits.
func DefineWith[P any](traits Traits, name, desc string, kind Kind, run func(context.Context, *Session, P) (Result, error)) Tool {
	return newTool(name, desc, kind, run).declare(traits.Effect, traits.Category)
}
