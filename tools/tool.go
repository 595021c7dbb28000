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
	// Traits say what the tool's calls do and its category; every tool
	// declares them (a registry test checks).
	Traits() Traits
	// Touches are the files a call with these arguments names (as given,
	// relative to the root or absolute), with the change for an edit;
	// none for arguments that cannot be read.
	Touches(args json.RawMessage) []Touch
}

// Effect is what a tool's calls do.
type Effect string

// Effects.
const (
	// EffectRead reads files or state it is given.
	EffectRead Effect = "read"
	// EffectSearch reads across the workspace to find things.
	EffectSearch Effect = "search"
	// EffectEdit changes files.
	EffectEdit Effect = "edit"
	// EffectDelete removes files.
	EffectDelete Effect = "delete"
	// EffectExecute runs commands (tests, linters, git, a shell).
	EffectExecute Effect = "execute"
	// EffectNetwork reaches outside the machine (web search).
	EffectNetwork Effect = "network"
	// EffectNone touches nothing outside the run's own records (notes,
	// plans, cards, comments, questions).
	EffectNone Effect = "none"
)

// Category is a tool's category (spec coding-team-tools.md, 003-1).
type Category string

// Categories.
const (
	// CategoryReadOnly: read files, search code; no modifications (safe).
	CategoryReadOnly Category = "READ_ONLY"
	// CategoryMutating: apply patches, commit, run commands; can be
	// undone (reversible).
	CategoryMutating Category = "MUTATING"
	// CategoryMeta: record events, create plans; metadata only (safe).
	CategoryMeta Category = "META"
)

// Risk is the spec's risk level of the category.
func (c Category) Risk() string {
	switch c {
	case CategoryReadOnly, CategoryMeta:
		return "Safe"
	case CategoryMutating:
		return "Reversible"
	}
	return ""
}

// Traits are what a tool declares about itself.
type Traits struct {
	Effect   Effect   `json:"effect"`
	Category Category `json:"category"`
}

// Valid reports whether both traits are declared and known.
func (t Traits) Valid() bool {
	switch t.Effect {
	case EffectRead, EffectSearch, EffectEdit, EffectDelete, EffectExecute, EffectNetwork, EffectNone:
	default:
		return false
	}
	return t.Category.Risk() != ""
}

// Touch is a file a call names: a path as the model gave it, the line it
// starts at (0 for none), and for an edit each replacement (Old is "" for
// new content).
type Touch struct {
	Path    string        `json:"path"`
	Line    int           `json:"line,omitempty"`
	Changes []Replacement `json:"changes,omitempty"`
}

// Replacement is one change of an edit: Old replaced by New.
type Replacement struct {
	Old string `json:"old"`
	New string `json:"new"`
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
