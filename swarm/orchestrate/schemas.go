package orchestrate

import (
	"encoding/json"
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

// envelopeInstructions tells a model without native tool calling how to
// call the tools (spec/swarm-tools.md's JSON envelope).
func envelopeInstructions(fns []tools.FunctionSchema) string {
	b, _ := json.Marshal(fns)
	return `You call tools by writing a JSON object, alone or in a fenced json block:
{"tool_calls": [{"name": "<tool>", "args": {...}}]}
Several calls may go in one envelope. Write nothing after the envelope. The tools and their JSON Schemas:
` + string(b) + "\n"
}
