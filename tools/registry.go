package tools

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Registry holds tools by name.
type Registry struct {
	tools map[string]Tool
}

// NewRegistry makes a registry of the given tools; a duplicate name is an error.
func NewRegistry(ts ...Tool) (*Registry, error) {
	r := &Registry{tools: map[string]Tool{}}
	for _, t := range ts {
		if err := r.Register(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds a tool.
func (r *Registry) Register(t Tool) error {
	if _, dup := r.tools[t.Name()]; dup {
		return fmt.Errorf("tool %q is already registered", t.Name())
	}
	r.tools[t.Name()] = t
	return nil
}

// AddMissing registers the tools whose names are not taken yet (a tool of
// a taken name is left out).
func (r *Registry) AddMissing(ts ...Tool) {
	for _, t := range ts {
		if !r.Has(t.Name()) {
			r.tools[t.Name()] = t
		}
	}
}

// Get finds a tool by name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// Has reports whether a tool is registered.
func (r *Registry) Has(name string) bool { _, ok := r.tools[name]; return ok }

// Count is the number of tools.
func (r *Registry) Count() int { return len(r.tools) }

// Names lists the tool names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// List returns the tools sorted by name.
func (r *Registry) List() []Tool {
	var out []Tool
	for _, n := range r.Names() {
		out = append(out, r.tools[n])
	}
	return out
}

// Filter returns a registry with only the named tools that exist here.
func (r *Registry) Filter(names []string) *Registry {
	out := &Registry{tools: map[string]Tool{}}
	for _, n := range names {
		if t, ok := r.tools[n]; ok {
			out.tools[n] = t
		}
	}
	return out
}

// FunctionSchema is a tool in the OpenAI function-calling format.
type FunctionSchema struct {
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function describes one callable function.
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Schemas returns the function schemas of the allowed tools (all when
// allowed is nil), sorted by name.
func (r *Registry) Schemas(allowed []string) []FunctionSchema {
	reg := r
	if allowed != nil {
		reg = r.Filter(allowed)
	}
	var out []FunctionSchema
	for _, t := range reg.List() {
		out = append(out, FunctionSchema{Type: "function", Function: Function{Name: t.Name(), Description: t.Description(), Parameters: t.Schema()}})
	}
	return out
}

// Catalog is every tool of this package once, for describing calls
// (their traits and the files they touch), never for running them: its
// web tools have no provider.
func Catalog() (*Registry, error) {
	reg, err := All(Deps{})
	if err != nil {
		return nil, err
	}
	reg.AddMissing(newWebSearch(nil), newWebCodeSearch(nil))
	return reg, nil
}
