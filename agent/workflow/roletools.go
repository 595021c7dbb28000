package workflow

import (
	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/review"
	"github.com/autarch-dev/autarch/tools/terminal"
)

// RoleExtras are the tools a role gets from its workflow stage rather than
// from its registry: the review agent's get_diff, get_scope_card and
// comment tools (bound to the review under way; listed unbound).
func RoleExtras(role string) []tools.Tool {
	if role == agent.Review {
		return review.Unbound()
	}
	return nil
}

// AddRoleTools adds every role's structured output tools and stage tools
// (RoleExtras) to reg, those it has not got.
func AddRoleTools(reg *tools.Registry) {
	for _, r := range tools.Roles {
		reg.AddMissing(append(terminal.ForRole(r), RoleExtras(r)...)...)
	}
}
