package review

import (
	_ "embed"

	"github.com/autarch-dev/autarch/tools"
)

//go:embed get_scope_card.md
var getScopeCardDesc string

func newGetScopeCard(b Backend) tools.Tool {
	return newGetter("get_scope_card", getScopeCardDesc, ErrNoScope, b.ScopeCard, func(sc Scope) map[string]any {
		return map[string]any{"success": true, "title": sc.Title, "description": sc.Description,
			"in_scope": nonNil(sc.InScope), "out_of_scope": nonNil(sc.OutOfScope), "constraints": nonNil(sc.Constraints)}
	})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
