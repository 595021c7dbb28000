package workflow_test

import (
	"os"
	"path/filepath"
	"testing"
)

// addSubmodules makes each of subs (name → files) a local repository with
// one commit and adds it to the repository in dir as the submodule name
// (staged, committed with the rest of the scenario's repository).
func addSubmodules(t *testing.T, dir string, subs map[string]map[string]string) {
	t.Helper()
	for name, files := range subs {
		src := filepath.Join(t.TempDir(), name)
		for rel, content := range files {
			p := filepath.Join(src, rel)
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			must(t, os.WriteFile(p, []byte(content), 0o644))
		}
		gitRun(t, src, "init", "-q", "-b", "main")
		gitRun(t, src, "add", "-A")
		gitRun(t, src, "-c", "user.name=User", "-c", "user.email=user@example.com", "commit", "-q", "-m", "initial")
		gitRun(t, dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", src, name)
	}
}
