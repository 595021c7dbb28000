package tools

import (
	"strings"
	"testing"
)

// TestEditFileDescriptionIsFinal (000-106): edit_file's description ends
// with the spec's "Failure is final" and invites no retry.
func TestEditFileDescriptionIsFinal(t *testing.T) {
	for _, role := range []string{"pulsing", "preflight"} {
		reg, err := ForRole(role, Deps{})
		if err != nil {
			t.Fatal(err)
		}
		tool, ok := reg.Get("edit_file")
		if !ok {
			continue
		}
		d := tool.Description()
		if !strings.Contains(d, "Failure is final: do not attempt fuzzy matching or retries.\n") || strings.Contains(d, "try again") {
			t.Errorf("%s: edit_file description contradicts \"Failure is final\":\n%s", role, d)
		}
	}
}
