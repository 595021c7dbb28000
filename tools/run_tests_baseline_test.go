package tools

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestPreflightRecordsBaselines: in preflight, what run_tests and run_lint
// find becomes baselines (a failing test by name, a build failure by its
// compiler errors, an issue by message and file); run again, the same
// findings are pre-existing and nothing is recorded twice. Other roles
// record nothing.
func TestPreflightRecordsBaselines(t *testing.T) {
	files := map[string]string{
		"go.mod":       goMod,
		"a_test.go":    "package m\n\nimport \"testing\"\n\nfunc TestOld(t *testing.T) { t.Fatal(\"old\") }\nfunc TestOK(t *testing.T) {}\n",
		"broken/b.go":  "package broken\n\nfunc B() int { return missing }\n",
		"tags/tags.go": "package tags\n\ntype T struct {\n\tA int `json:\"a\"`\n\tB int `json:\"a\"`\n}\n",
	}
	want := []Baseline{
		{IssueType: "Error", Source: "Test", Pattern: "undefined: missing", FilePath: "broken/b.go"},
		{IssueType: "Error", Source: "Test", Pattern: "example.com/m.TestOld"},
		{IssueType: "Error", Source: "Lint", Pattern: "struct field B repeats json tag \"a\" also at tags.go:4", FilePath: "tags/tags.go"},
	}
	tests := []struct {
		role string
		want []Baseline
	}{
		{"preflight", want},
		{"pulsing", nil},
	}
	for _, tt := range tests {
		t.Run(tt.role, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, files)
			h := newHarness(t, tt.role, SessionConfig{Root: dir})
			for round := range 2 {
				for _, tool := range []string{"run_tests", "run_lint"} {
					var got struct {
						Status   string `json:"status"`
						Recorded int    `json:"recordedBaselines"`
					}
					res := h.call(tool, map[string]any{})
					if err := json.Unmarshal([]byte(res.Output), &got); err != nil {
						t.Fatal(err)
					}
					wantStatus, wantRecorded := "fail", 0
					if tt.want != nil {
						wantStatus = "pass" // every finding is a baseline now
						if round == 0 {
							wantRecorded = map[string]int{"run_tests": 2, "run_lint": 1}[tool]
						}
					}
					if got.Status != wantStatus || got.Recorded != wantRecorded {
						t.Errorf("round %d, %s: status %s, recorded %d; want %s, %d\n%s", round, tool, got.Status, got.Recorded, wantStatus, wantRecorded, res.Output)
					}
				}
			}
			var got []Baseline
			for _, b := range h.s.Baselines() {
				b.ID, b.Description = "", ""
				got = append(got, b)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("baselines:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
