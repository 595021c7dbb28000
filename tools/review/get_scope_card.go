package review

import (
	"github.com/autarch-dev/autarch/tools"
)

func newGetScopeCard(b Backend) tools.Tool {
	return newGetter("get_scope_card", describe("get_scope_card"), ErrNoScope, b.ScopeCard, func(sc Scope) map[string]any {
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
