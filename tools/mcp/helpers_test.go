package mcp

import (
	"slices"
	"testing"
)

// toolNames are the names of the tools m offers role, sorted; a server
// that fails to list fails the test.
func toolNames(t *testing.T, m *Manager, role string) []string {
	t.Helper()
	ts, errs := m.Tools(t.Context(), role)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	names := make([]string, 0, len(ts))
	for _, tl := range ts {
		names = append(names, tl.Name())
	}
	slices.Sort(names)
	return names
}
