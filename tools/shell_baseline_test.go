package tools

import (
	"testing"
)

// TestShellGoTestMatchesBaselines (spec 004-24: errors matching baselines
// are ignored, new ones reported): a pre-existing failing test, recorded
// as run_tests records it (pkg.TestX) or by hand (the name and its file),
// does not fail a `go test` the agent runs through shell, by the matcher
// the quality gates filter with; a new failing test still does.
func TestShellGoTestMatchesBaselines(t *testing.T) {
	files := map[string]string{
		"go.mod":              goMod,
		"calc/calc.go":        "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
		"calc/flaky_test.go":  "package calc\n\nimport \"testing\"\n\nfunc TestFlaky(t *testing.T) { t.Error(\"flaky: error 42\") }\nfunc TestAdd(t *testing.T) {}\n",
		"other/other.go":      "package other\n",
		"other/other_test.go": "package other\n\nimport \"testing\"\n\nfunc TestOther(t *testing.T) {}\n",
	}
	recorded := Baseline{ID: "b1", IssueType: "Error", Source: "Test", Pattern: "example.com/m/calc.TestFlaky"}
	tests := []struct {
		name     string
		baseline Baseline
		command  string
		extra    map[string]string
		known    bool
	}{
		{"run_tests baseline", recorded, "go test ./...", nil, true},
		{"run_tests baseline, verbose", recorded, "go test -v ./...", nil, true},
		{"by name and package file", Baseline{ID: "b1", IssueType: "Error", Source: "Test", Pattern: "TestFlaky", FilePath: "calc/flaky_test.go"}, "go test ./...", nil, true},
		{"by name and file name", Baseline{ID: "b1", IssueType: "Error", Source: "Test", Pattern: "TestFlaky", FilePath: "flaky_test.go"}, "go test -v ./calc", nil, true},
		{"another file", Baseline{ID: "b1", IssueType: "Error", Source: "Test", Pattern: "TestFlaky", FilePath: "other/flaky_test.go"}, "go test ./...", nil, false},
		{"a new failing test", recorded, "go test ./...", map[string]string{"other/other_test.go": "package other\n\nimport \"testing\"\n\nfunc TestOther(t *testing.T) { t.Fatal(\"new\") }\n"}, false},
		{"a new failure in the same package", recorded, "go test -v ./...", map[string]string{"calc/new_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestNew(t *testing.T) { t.Fatal(\"error: new\") }\n"}, false},
		{"a new build failure", recorded, "go test ./...", map[string]string{"other/other.go": "package other\n\nvar x int = \"s\"\n"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, files)
			writeFiles(t, dir, tt.extra)
			h := newHarness(t, "pulsing", SessionConfig{Root: dir})
			h.s.SetBaselines([]Baseline{tt.baseline})
			mark := h.s.Mark()
			res := h.call("shell", map[string]any{"command": tt.command})
			if res.Failed == tt.known {
				t.Errorf("failed = %v, want %v:\n%s", res.Failed, !tt.known, res.Output)
			}
			if got := len(h.s.FailuresSince(mark)); got != map[bool]int{true: 0, false: 1}[tt.known] {
				t.Errorf("%d failures on record:\n%s", got, res.Output)
			}
		})
	}
}
