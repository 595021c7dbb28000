package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/editor"
)

// codeEditor is an editor whose language features answer from a table
// (VS Code's definition and reference providers, as the extension gives
// them); it records what it was asked.
type codeEditor struct {
	*editor.Terminal
	answers map[string][]editor.EditorLocation
	asked   []editor.LanguageFeatureParams
}

func (e *codeEditor) Call(ctx context.Context, method string, params, result any) error {
	if method != editor.MethodLanguageFeature {
		return e.Terminal.Call(ctx, method, params, result)
	}
	p := params.(editor.LanguageFeatureParams)
	e.asked = append(e.asked, p)
	b, _ := json.Marshal(editor.LanguageFeatureResult{Locations: e.answers[p.Feature]})
	return json.Unmarshal(b, result)
}

// TestDiscussionUsesTheEditorsLanguageFeatures: on the user's own files in
// an editor that gives its diagnostics (the discussion agent in VS Code),
// go_to_definition and find_references ask the editor's language features
// (position in UTF-16 from the symbol on its line), not a second server;
// elsewhere the editor is not asked.
func TestDiscussionUsesTheEditorsLanguageFeatures(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"lib.lua": "local M = {}\n\nfunction M.greet(n) return 'hi ' .. n end\n\nreturn M\n",
		"app.lua": "local lib = require('lib')\nprint(lib.greet('a'), lib.greet('b'))\n",
	})
	lib, app := filepath.Join(dir, "lib.lua"), filepath.Join(dir, "app.lua")
	ed := &codeEditor{Terminal: &editor.Terminal{}, answers: map[string][]editor.EditorLocation{
		"definition": {{Path: lib, Line: 2, Character: 11}},
		"references": {{Path: lib, Line: 2, Character: 11}, {Path: app, Line: 1, Character: 10}, {Path: app, Line: 1, Character: 26}, {Path: "/elsewhere/x.lua"}},
	}}
	noDiags := func(context.Context, []string) ([]editor.DiagnosticItem, error) { return nil, nil }
	h := newHarness(t, "discussion", SessionConfig{Root: dir, Editor: ed, Diagnostics: noDiags})
	res := h.call("go_to_definition", map[string]any{"path": "app.lua", "line": 2, "symbol": "greet"})
	if got := places(t, res, "definitions"); !slices.Equal(got, []string{"lib.lua:3"}) || res.Failed {
		t.Fatalf("definition = %v: %s", got, res.Output)
	}
	if want := (editor.LanguageFeatureParams{Feature: "definition", Path: "app.lua", Line: 1, Character: 10}); len(ed.asked) != 1 || ed.asked[0] != want {
		t.Errorf("the editor was asked %+v, want %+v", ed.asked, want)
	}
	res = h.call("find_references", map[string]any{"path": "app.lua", "line": 2, "symbol": "greet"})
	if got := places(t, res, "references"); !slices.Equal(got, []string{"app.lua:2", "app.lua:2"}) || !strings.Contains(res.Output, `"column":27`) {
		t.Errorf("references = %v: %s", got, res.Output)
	}
	res = h.call("find_references", map[string]any{"path": "app.lua", "line": 2, "symbol": "greet", "includeDeclaration": true})
	if got := places(t, res, "references"); len(got) != 3 || !strings.Contains(res.Output, `"outside_worktree":1`) {
		t.Errorf("references with the declaration = %v: %s", got, res.Output)
	}
	// A worktree session (no editor diagnostics) never asks the editor.
	asked := len(ed.asked)
	other := newHarness(t, "pulsing", SessionConfig{Root: dir, Editor: ed})
	res = other.call("go_to_definition", map[string]any{"path": "app.lua", "line": 2, "symbol": "greet"})
	if len(ed.asked) != asked || !res.Failed || !strings.Contains(res.Output, "no language server for .lua files") {
		t.Errorf("a worktree session asked the editor (%d calls) or answered %s", len(ed.asked)-asked, res.Output)
	}
}
