package tools

import (
	"encoding/json"
	"testing"
)

// TestSchemaBuiltOnFirstUse: a tool's schema is derived when first asked
// for (a process that runs one tool does not build every tool's), and
// then is the parameters' object schema with the reason.
func TestSchemaBuiltOnFirstUse(t *testing.T) {
	g := newGrep().(*typed[grepParams])
	if g.schema != nil || g.resolved != nil {
		t.Fatal("newTool derived the schema before it was asked for")
	}
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(g.Schema(), &s); err != nil || s.Type != "object" || s.Properties["pattern"] == nil || s.Properties["reason"] == nil {
		t.Fatalf("schema %s (%v)", g.Schema(), err)
	}
	if err := g.Validate(json.RawMessage(`{"reason":"r","pattern":3}`)); err == nil {
		t.Fatal("Validate took a number for the pattern")
	}
}

// TestEveryToolHasSchema derives every tool's schema (newTool no longer
// does, so a parameter struct without one would show only when used).
func TestEveryToolHasSchema(t *testing.T) {
	reg, err := All(Deps{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range reg.List() {
		var s struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tl.Schema(), &s); err != nil || s.Type != "object" {
			t.Errorf("%s: schema %s (%v)", tl.Name(), tl.Schema(), err)
		}
	}
}
