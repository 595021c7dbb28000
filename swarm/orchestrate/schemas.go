package orchestrate

import (
	"strings"

	"github.com/autarch-dev/autarch/tools"
)

// offered reports whether tool is one of the functions offered, and
// their names.
func offered(tool string, fns []tools.FunctionSchema) (bool, string) {
	var names []string
	found := false
	for _, f := range fns {
		names = append(names, f.Function.Name)
		found = found || f.Function.Name == tool
	}
	return found, strings.Join(names, ", ")
}
