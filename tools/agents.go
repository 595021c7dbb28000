package tools

import (
	"fmt"

	"github.com/autarch-dev/autarch/tools/websearch"
)

// Roles, as in the spec's availability table.
var Roles = []string{"discussion", "scoping", "research", "plan", "preflight", "pulsing", "review"}

// Deps are what tools need from outside the package.
type Deps struct {
	// Web is the web search provider (nil: not configured, and then no
	// agent is offered web_code_search or web_search).
	Web WebSearcher
}

// baseTools are the read-only tools every agent has.
func baseTools(role string, d Deps) []Tool {
	ts := []Tool{newSemanticSearch(role), newReadFile(role), newListDirectory(), newGlobSearch(), newGrep(), newTakeNote()}
	ts = append(ts, codeIntelligenceTools()...)
	if d.Web != nil {
		ts = append(ts, newWebCodeSearch(websearch.NewCache(d.Web)))
	}
	return ts
}

// codeIntelligenceTools are the language-server tools that read code
// (issue 33): every role that reads code has them; rename_symbol is the
// writing roles'.
func codeIntelligenceTools() []Tool {
	return []Tool{newGoToDefinition(), newFindReferences(), newHover(), newDocumentSymbols(), newWorkspaceSymbols(), newCallHierarchy()}
}

// ForRole returns the registry of one agent role, the spec's table: base
// tools for every role; preflight adds shell and record_baseline; pulsing
// adds edit_file, multi_edit, apply_patch (001-9: one or several files),
// write_file and shell. Both add
// coding-team-tools.md's run_tests, run_lint and read_lints (issue 16:
// preflight records baselines from their structured results, pulses verify
// their work with them; the README lists this extension). The review,
// terminal and sub-agent tools are registered on top by their owners.
func ForRole(role string, d Deps) (*Registry, error) {
	ts := baseTools(role, d)
	switch role {
	case "discussion", "scoping", "research", "plan", "review":
	case "preflight":
		ts = append(ts, newShell(role), newRecordBaseline(), newRunTests(), newRunLint(), NewReadLints())
	case "pulsing":
		// edit_file → apply_patch → write_file (001-10).
		ts = append(ts, newEditFile(), newMultiEdit(), newApplyPatch(), newWriteFile(), newShell(role), newRunTests(), newRunLint(), NewReadLints(), newRenameSymbol())
	default:
		return nil, fmt.Errorf("unknown agent role %q: use one of %v", role, Roles)
	}
	return NewRegistry(ts...)
}

// All returns every tool once (the pulsing variants of shared tools), with
// tool-engine.md's delete_file, find_files and search_code,
// which no role of the availability table has. The CLI uses it.
func All(d Deps) (*Registry, error) {
	reg, err := ForRole("pulsing", d)
	if err != nil {
		return nil, err
	}
	ts := []Tool{newRecordBaseline(), newDeleteFile(), newFindFiles(), newSearchCode()}
	if d.Web != nil {
		ts = append(ts, newWebSearch(websearch.NewCache(d.Web)))
	}
	for _, t := range ts {
		if err := reg.Register(t); err != nil {
			return nil, err
		}
	}
	return reg, nil
}
