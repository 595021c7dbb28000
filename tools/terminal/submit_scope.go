package terminal

import (
	"context"

	"github.com/autarch-dev/autarch/tools"
)

// ScopeCard is submit_scope's parameters: the scope card.
type ScopeCard struct {
	Reason          string   `json:"reason"`
	Title           string   `json:"title" jsonschema:"Brief title of what this scope covers"`
	Description     string   `json:"description" jsonschema:"A few sentences describing the scope in detail"`
	InScope         []string `json:"in_scope" jsonschema:"List of items explicitly in scope"`
	OutOfScope      []string `json:"out_of_scope" jsonschema:"List of items explicitly out of scope"`
	Constraints     []string `json:"constraints,omitempty" jsonschema:"List of binding constraints that must not be violated"`
	RecommendedPath string   `json:"recommended_path" jsonschema:"Recommended workflow path: quick or full"`
	Rationale       string   `json:"rationale,omitempty" jsonschema:"Explanation of why the recommended path was chosen"`
}

func newSubmitScope() tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, SubmitScope, describe(SubmitScope), tools.Terminal, func(ctx context.Context, s *tools.Session, p ScopeCard) (tools.Result, error) {
		switch {
		case blank(p.Title):
			return invalid("title is required"), nil
		case blank(p.Description):
			return invalid("description is required"), nil
		case len(p.InScope) == 0:
			return invalid("in_scope needs at least one item"), nil
		case p.RecommendedPath != "quick" && p.RecommendedPath != "full":
			return invalid("recommended_path %q is invalid: use \"quick\" or \"full\"", p.RecommendedPath), nil
		}
		return accepted(SubmitScope, nil), nil
	})
}
