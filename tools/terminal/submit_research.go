package terminal

import (
	"context"

	"github.com/autarch-dev/autarch/tools"
)

// Research is submit_research's parameters.
type Research struct {
	Reason   string `json:"reason"`
	Summary  string `json:"summary" jsonschema:"Concise, factual overview of how the relevant system works"`
	KeyFiles []struct {
		Path       string `json:"path"`
		Purpose    string `json:"purpose"`
		LineRanges string `json:"lineRanges,omitempty"`
	} `json:"keyFiles" jsonschema:"Important files discovered during research"`
	Patterns []struct {
		Category    string   `json:"category"`
		Description string   `json:"description"`
		Example     string   `json:"example"`
		Locations   []string `json:"locations"`
	} `json:"patterns,omitempty" jsonschema:"Observed patterns used consistently across the codebase"`
	Dependencies []struct {
		Name         string `json:"name"`
		Purpose      string `json:"purpose"`
		UsageExample string `json:"usageExample"`
	} `json:"dependencies,omitempty" jsonschema:"External libraries or modules relevant to the work"`
	IntegrationPoints []struct {
		Location     string `json:"location"`
		Description  string `json:"description"`
		ExistingCode string `json:"existingCode"`
	} `json:"integrationPoints,omitempty" jsonschema:"Locations where new behavior should attach"`
	Challenges []struct {
		Issue      string `json:"issue"`
		Mitigation string `json:"mitigation"`
	} `json:"challenges,omitempty" jsonschema:"Technical or architectural risks"`
	Recommendations []string `json:"recommendations" jsonschema:"Clear, directive guidance for implementation"`
}

func newSubmitResearch() tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, SubmitResearch, describe(SubmitResearch), tools.Terminal, func(ctx context.Context, s *tools.Session, p Research) (tools.Result, error) {
		switch {
		case blank(p.Summary):
			return invalid("summary is required"), nil
		case len(p.KeyFiles) == 0:
			return invalid("keyFiles needs at least one file"), nil
		case len(p.Recommendations) == 0:
			return invalid("recommendations needs at least one recommendation"), nil
		}
		for i, f := range p.KeyFiles {
			if blank(f.Path) || blank(f.Purpose) {
				return invalid("keyFiles[%d] needs a path and a purpose", i), nil
			}
		}
		return accepted(SubmitResearch, nil), nil
	})
}
