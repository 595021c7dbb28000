package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyDirection enforces DESIGN.md's rule that dependencies point
// down only: nothing imports server but cmd/autarch; the domain never
// imports the layers above it.
func TestDependencyDirection(t *testing.T) {
	const mod = "github.com/autarch-dev/autarch/"
	forbidden := map[string][]string{
		"editor":         {"server", "agent", "tools", "index", "workspace"},
		"workspace":      {"server", "agent", "tools", "index", "editor"},
		"workspace/git":  {"server", "agent", "tools", "index", "editor"},
		"index":          {"server", "agent", "tools", "editor"},
		"tools":          {"server", "agent"},
		"agent":          {"server", "agent/workflow"},
		"agent/openai":   {"server", "agent/workflow"},
		"agent/workflow": {"server"},
	}
	out, err := exec.Command("go", "list", "-json=ImportPath,Deps", "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Deps       []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(p.ImportPath, mod)
		for _, dep := range p.Deps {
			d, ok := strings.CutPrefix(dep, mod)
			if !ok {
				continue
			}
			if d == "server" && !strings.HasPrefix(rel, "cmd/") {
				t.Errorf("%s imports server: only cmd/ may", rel)
			}
			for pkg, bad := range forbidden {
				if rel != pkg && !strings.HasPrefix(rel, pkg+"/") {
					continue
				}
				for _, b := range bad {
					if (d == b || strings.HasPrefix(d, b+"/")) && !strings.HasPrefix(b, rel) {
						t.Errorf("%s depends on %s: DESIGN.md forbids it", rel, d)
					}
				}
			}
		}
	}
}
