package tools

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/autarch-dev/autarch/tools/verify"
)

// TestGateRunDecidesMasksOnce (issue 35): the commands of one gate run
// (go list, build, test, vet) share the masks its first command decided
// instead of each walking the tree again (a second each on a 23k-file
// tree under load); the next command after the run walks again, and the
// secret masked before the run stays masked during it.
func TestGateRunDecidesMasksOnce(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"go.mod":    "module example.com/p\n\ngo 1.22\n",
		"p.go":      "package p\n\nfunc One() int { return 1 }\n",
		"p_test.go": "package p\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestOne(t *testing.T) {\n\tif _, err := os.ReadFile(\".env\"); err == nil {\n\t\tif data, _ := os.ReadFile(\".env\"); len(data) > 0 {\n\t\t\tt.Fatalf(\"read the secret: %q\", data)\n\t\t}\n\t}\n}\n",
		".env":      "API_KEY=SECRET_VALUE_5e4d3c2b1a0f9e8d\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := NewSession(SessionConfig{Root: dir, Role: "pulsing", Mode: ModeYolo})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run := s.QualityGates(context.Background(), verify.Gates{}, []string{"p.go"})
	if run.Failed() || len(run.Reports) < 3 {
		t.Fatalf("gate run: %+v (skipped %q)", run.Reports, run.Skipped)
	}
	if w := s.confine.walks; w != 1 {
		t.Errorf("a gate run of %d checks walked the tree %d times, want 1", len(run.Reports), w)
	}
	if _, err := s.runCommand(context.Background(), "true", 0); err != nil {
		t.Fatal(err)
	}
	if w := s.confine.walks; w != 2 {
		t.Errorf("the command after the gate run: %d walks in all, want 2", w)
	}
}
