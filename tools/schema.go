package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// reasonDescription is the spec's description of the common reason parameter.
const reasonDescription = `Required. A short, human-readable statement of the logical purpose of this tool call (e.g. "Add Channels property to ViewModel used by ChannelListView").
Do not describe the tool operation itself (e.g. "edit_file Foo.cs").
Assume this reason may be the only surviving record of the action after a yield.`

// Reason is embedded first in every tool's parameters.
type Reason struct {
	Reason string `json:"reason"`
}

// schemaOf derives the JSON Schema of a parameter struct P (which must have
// a "reason" field) and resolves it for validation.
func schemaOf[P any]() (json.RawMessage, *jsonschema.Resolved, error) {
	s, err := jsonschema.For[P](nil)
	if err != nil {
		return nil, nil, fmt.Errorf("deriving schema: %w", err)
	}
	r, ok := s.Properties["reason"]
	if !ok {
		return nil, nil, fmt.Errorf("parameters have no reason field")
	}
	r.Description = reasonDescription
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, nil, fmt.Errorf("resolving schema: %w", err)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, nil, err
	}
	return raw, resolved, nil
}

// validateArgs checks raw arguments against a schema and explains the first
// problem in a way the model can act on.
func validateArgs(resolved *jsonschema.Resolved, raw json.RawMessage) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	var instance any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&instance); err != nil {
		return fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	obj, ok := instance.(map[string]any)
	if !ok {
		return fmt.Errorf("arguments must be a JSON object")
	}
	for k, v := range obj {
		if n, ok := v.(json.Number); ok {
			f, _ := n.Float64()
			obj[k] = f
		}
	}
	if err := resolved.Validate(normalize(obj)); err != nil {
		return fmt.Errorf("invalid arguments: %s", strings.TrimPrefix(err.Error(), "validating root: "))
	}
	if r, _ := obj["reason"].(string); strings.TrimSpace(r) == "" {
		return fmt.Errorf("invalid arguments: reason is required: say why you make this call")
	}
	return nil
}

// normalize turns json.Number values into float64 recursively.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
	case json.Number:
		f, _ := x.Float64()
		return f
	}
	return v
}

// ValidateArgs checks raw arguments against a resolved schema as the
// engine does for every tool (the reason included), for tools defined
// outside this package with their own schema (MCP tools).
func ValidateArgs(resolved *jsonschema.Resolved, raw json.RawMessage) error {
	return validateArgs(resolved, raw)
}
