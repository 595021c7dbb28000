package terminal

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/autarch-dev/autarch/tools"
)

// UnresolvedIssue is an acknowledged issue of the escape hatch.
type UnresolvedIssue struct {
	Issue  string `json:"issue"`
	Reason string `json:"reason"`
}

// PulseDone is complete_pulse's parameters.
type PulseDone struct {
	Reason           string            `json:"reason"`
	Summary          string            `json:"summary" jsonschema:"Conventional commit message (e.g. feat(auth): implement login flow)"`
	FilesChanged     []string          `json:"filesChanged" jsonschema:"List of file paths that were modified"`
	UnresolvedIssues []UnresolvedIssue `json:"unresolvedIssues,omitempty" jsonschema:"Acknowledged issues that could not be fixed (escape hatch): each halts automatic orchestration until a human reviews the pulse"`
}

// escapeHatch is the parameter the model is not offered until it is
// revealed.
const escapeHatch = "unresolvedIssues"

// newCompletePulse is complete_pulse as first offered: its schema leaves
// out unresolvedIssues, which pulsing-phase.md's progressive rejection
// reveals only after repeated rejection (EscapeHatchSchema). Calls are
// still checked against the whole schema, so an early use of the escape
// hatch is refused by the completion protocol with its own message.
func newCompletePulse() tools.Tool {
	t := definePulseDone()
	concealed, err := withoutProperty(t.Schema(), escapeHatch)
	if err != nil {
		panic(fmt.Sprintf("complete_pulse schema: %v", err)) // a build defect, caught by the tests
	}
	return tools.WithSchema(t, concealed)
}

// EscapeHatchSchema is complete_pulse's schema with unresolvedIssues,
// offered once the escape hatch is revealed.
func EscapeHatchSchema() json.RawMessage { return definePulseDone().Schema() }

func definePulseDone() tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, CompletePulse, describe(CompletePulse), tools.Terminal, func(ctx context.Context, s *tools.Session, p PulseDone) (tools.Result, error) {
		if err := ValidCommitSummary(p.Summary); err != nil {
			return invalid("%v", err), nil
		}
		for i, u := range p.UnresolvedIssues {
			if blank(u.Issue) || blank(u.Reason) {
				return invalid("unresolvedIssues[%d] needs both issue and reason", i), nil
			}
		}
		return accepted(CompletePulse, nil), nil
	})
}

// withoutProperty is an object schema without one of its properties.
func withoutProperty(schema json.RawMessage, name string) (json.RawMessage, error) {
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	props, ok := s["properties"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema has no properties")
	}
	if _, ok := props[name]; !ok {
		return nil, fmt.Errorf("schema has no property %q", name)
	}
	delete(props, name)
	if req, ok := s["required"].([]any); ok {
		kept := []any{}
		for _, r := range req {
			if r != name {
				kept = append(kept, r)
			}
		}
		s["required"] = kept
	}
	return json.Marshal(s)
}
