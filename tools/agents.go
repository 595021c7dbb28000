package tools

import "fmt"

// Roles, as in the spec's availability table.
var Roles = []string{"discussion", "scoping", "research", "plan", "preflight", "pulsing", "review"}

// Deps are what tools need from outside the package.
type Deps struct {
	// Web is the web_code_search provider (nil: not configured).
	Web WebSearcher
}

// baseTools are the read-only tools every agent has.
func baseTools(role string, d Deps) []Tool {
	return []Tool{newSemanticSearch(role), newReadFile(role), newListDirectory(), newGlobSearch(), newGrep(), newTakeNote(), newWebCodeSearch(d.Web)}
}

// ForRole returns the registry of one agent role, the spec's table: base
// tools for every role; preflight adds shell and record_baseline; pulsing
// adds write_file, edit_file, multi_edit and shell. Both add
// coding-team-tools.md's run_tests and run_lint (issue 16: preflight
// records baselines from their structured results, pulses verify their
// work with them). The review,
// terminal and sub-agent tools are registered on top by their owners.
func ForRole(role string, d Deps) (*Registry, error) {
	ts := baseTools(role, d)
	switch role {
	case "discussion", "scoping", "research", "plan", "review":
	case "preflight":
		ts = append(ts, newShell(role), newRecordBaseline(), newRunTests(), newRunLint())
	case "pulsing":
		ts = append(ts, newWriteFile(), newEditFile(), newMultiEdit(), newShell(role), newRunTests(), newRunLint())
	default:
		return nil, fmt.Errorf("unknown agent role %q: use one of %v", role, Roles)
	}
	return NewRegistry(ts...)
}

// All returns every tool once (the pulsing variants of shared tools), with
// tool-engine.md's apply_patch, delete_file, find_files and search_code,
// which no role of the availability table has. The CLI uses it.
func All(d Deps) (*Registry, error) {
	reg, err := ForRole("pulsing", d)
	if err != nil {
		return nil, err
	}
	for _, t := range []Tool{newRecordBaseline(), newApplyPatch(), newDeleteFile(), newFindFiles(), newSearchCode()} {
		if err := reg.Register(t); err != nil {
			return nil, err
		}
	}
	return reg, nil
}
