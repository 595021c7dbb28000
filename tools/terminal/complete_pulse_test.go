package terminal

import (
	"encoding/json"
	"testing"
)

// TestCompletePulseConcealsEscapeHatch: complete_pulse is offered without
// unresolvedIssues (pulsing-phase.md's progressive rejection, 004-22); the
// revealed schema has it; calls are checked against the whole schema, so
// an early use reaches the completion protocol, which refuses it.
func TestCompletePulseConcealsEscapeHatch(t *testing.T) {
	props := func(schema json.RawMessage) map[string]any {
		var s struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		if err := json.Unmarshal(schema, &s); err != nil {
			t.Fatal(err)
		}
		for _, r := range s.Required {
			if _, ok := s.Properties[r]; !ok {
				t.Errorf("required %q is not a property", r)
			}
		}
		return s.Properties
	}
	tool := newCompletePulse()
	tests := []struct {
		name   string
		schema json.RawMessage
		want   bool
	}{
		{"offered", tool.Schema(), false},
		{"revealed", EscapeHatchSchema(), true},
	}
	for _, tt := range tests {
		p := props(tt.schema)
		for _, name := range []string{"reason", "summary", "filesChanged"} {
			if _, ok := p[name]; !ok {
				t.Errorf("%s schema lacks %s", tt.name, name)
			}
		}
		if _, ok := p["unresolvedIssues"]; ok != tt.want {
			t.Errorf("%s schema has unresolvedIssues = %v, want %v", tt.name, ok, tt.want)
		}
	}
	v, ok := tool.(interface{ Validate(json.RawMessage) error })
	if !ok {
		t.Fatal("complete_pulse lost its schema check")
	}
	early := `{"reason":"r","summary":"fix: x","filesChanged":[],"unresolvedIssues":[{"issue":"flaky","reason":"network"}]}`
	if err := v.Validate(json.RawMessage(early)); err != nil {
		t.Errorf("an early escape hatch is refused by the schema (%v), not by the completion protocol", err)
	}
	if err := v.Validate(json.RawMessage(`{"reason":"r","summary":"fix: x"}`)); err == nil {
		t.Error("a call without filesChanged passed the schema check")
	}
	if _, err := withoutProperty(EscapeHatchSchema(), "nope"); err == nil {
		t.Error("removing a property that is not there succeeded")
	}
}
