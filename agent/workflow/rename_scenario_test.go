package workflow_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodeIntelligenceScenarios runs the scenarios that drive a real
// language server (testdata/lsp-scenarios, the format of
// testdata/scenarios): skipped, saying so, when gopls is not installed.
func TestCodeIntelligenceScenarios(t *testing.T) {
	if _, err := exec.LookPath("gopls"); err != nil {
		t.Skip("gopls is not installed (make gopls, or go install golang.org/x/tools/gopls@v0.23.0)")
	}
	paths, _ := filepath.Glob("testdata/lsp-scenarios/*.txt")
	if len(paths) == 0 {
		t.Fatal("no scenarios")
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			runScenario(t, path)
		})
	}
}
