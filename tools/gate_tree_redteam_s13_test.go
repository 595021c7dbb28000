package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools/verify"
)

// rewritesItsPackage is a package whose tests pass, and whose test
// binary, once they passed, rewrites the package's source into code that
// does not compile: the gate checked one tree, the pulse commits another.
var rewritesItsPackage = map[string]string{
	"p/p.go": "package p\n\nfunc Answer() int { return 42 }\n",
	"p/p_test.go": `package p

import (
	"os"
	"testing"
)

func TestAnswer(t *testing.T) {
	if Answer() != 42 {
		t.Fatal("broken")
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	_ = os.WriteFile("p.go", []byte("package p\n\nfunc Answer() int { return \"never gated\" }\n"), 0o644)
	os.Exit(code)
}
`,
}

// TestGatesVouchForTheTreeAfterThem (red team s13, 03): a gate's test
// binaries may write the worktree (Landlock lets them: tests write
// golden files), so a test binary can change a source after the go
// command compiled it. The gate passes; the tree it leaves, which the
// pulse then commits with a receipt saying the gates passed, does not
// compile. A gate must fail when its own commands changed the tree it
// vouches for (or its test binaries must not write the tree). Closed:
// HeldGates fails the run naming p/p.go.
func TestGatesVouchForTheTreeAfterThem(t *testing.T) {
	t.Setenv("GOCACHE", userGoCache(t))
	a := newAttackWorkspace(t)
	writeFiles(t, a.ws, map[string]string{"go.mod": "module example.com/a\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n"})
	writeFiles(t, a.ws, rewritesItsPackage)
	h := newHarness(t, "pulsing", SessionConfig{Root: a.ws})
	// the pulse's files, as its changed paths list them before and after
	pulse := []string{"p/p.go", "p/p_test.go"}
	listed := func(context.Context) ([]string, error) { return pulse, nil }
	run, err := h.s.HeldGates(context.Background(), verify.Gates{Kinds: []verify.Kind{verify.Test}, Full: true}, pulse, pulse, listed)
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(filepath.Join(a.ws, "p", "p.go"))
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Contains(string(after), "never gated")
	if changed && !run.Failed() {
		t.Errorf("the gates passed, and their test binary left a tree that does not compile:\n%s\ngates: %+v", after, run.Reports)
	}
	if !changed && run.Failed() {
		t.Errorf("the gates failed a package whose tests pass: %+v", run.Reports)
	}
}
