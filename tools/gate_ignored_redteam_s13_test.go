package tools

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/autarch-dev/autarch/tools/verify"
)

// TestGatesIgnoreIgnoredGoWork (red team s13, 06): the go command reads
// a go.work in the tree, and go.work is commonly git-ignored (the Go
// documentation advises not to commit it). An agent's go.work that
// replaces a dependency by a folder of its own makes the gates build a
// tree that the commit (without the ignored go.work) is not: here the
// module needs example.com/dep, which exists nowhere; the go.work gives
// a fake. The gates must judge the tree as it will be committed.
func TestGatesIgnoreIgnoredGoWork(t *testing.T) {
	t.Skip("redteam s13 06: open, see /work/briefs/s13/redteam/06-ignored-files-steer-the-gates.md")
	t.Setenv("GOCACHE", userGoCache(t))
	a := newAttackWorkspace(t)
	writeFiles(t, a.ws, map[string]string{
		".gitignore":  "go.work\ngo.work.sum\n.fake/\n",
		"go.mod":      "module example.com/a\n\ngo 1.22\n\nrequire example.com/dep v1.0.0\n",
		"main.go":     "package main\n\nfunc main() {}\n",
		"p/p.go":      "package p\n\nimport \"example.com/dep\"\n\nfunc F() int { return dep.Do() }\n",
		"p/p_test.go": "package p\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {\n\tif F() != 42 {\n\t\tt.Fatal(F())\n\t}\n}\n",
		// the agent's, ignored: never committed
		"go.work":          "go 1.22\n\nuse .\n\nreplace example.com/dep v1.0.0 => ./.fake/dep\n",
		".fake/dep/go.mod": "module example.com/dep\n\ngo 1.22\n",
		".fake/dep/dep.go": "package dep\n\nfunc Do() int { return 42 }\n",
	})
	h := newHarness(t, "pulsing", SessionConfig{Root: a.ws})
	gates := verify.Gates{Kinds: []verify.Kind{verify.Test}, Full: true}
	run := h.s.QualityGates(context.Background(), gates, []string{"p/p.go", "go.mod"})
	// The tree as it is committed: without the ignored files.
	for _, p := range []string{"go.work", ".fake"} {
		if err := os.RemoveAll(filepath.Join(a.ws, p)); err != nil {
			t.Fatal(err)
		}
	}
	committed := h.s.QualityGates(context.Background(), gates, []string{"p/p.go", "go.mod"})
	if !committed.Failed() {
		t.Fatalf("the committed tree passes (the attack is not real): %+v", committed.Reports)
	}
	if !run.Failed() {
		t.Errorf("the gates passed a tree whose committed form does not build (its dependency exists nowhere), steered by an ignored go.work: %+v", run.Reports)
	}
}
