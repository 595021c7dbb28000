package workflow_test

import (
	"path/filepath"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// addSubmodules makes each of subs (name → files) a local repository with
// one commit and adds it, in one more commit, to the repository in dir as
// the submodule name.
func addSubmodules(t *testing.T, dir string, subs map[string]map[string]string) {
	t.Helper()
	if len(subs) == 0 {
		return
	}
	for name, files := range subs {
		src := filepath.Join(t.TempDir(), name)
		testkit.WriteFiles(t, src, files)
		testkit.Git(t, src, "init", "-q", "-b", "main")
		testkit.Git(t, src, "add", "-A")
		testkit.Git(t, src, "-c", "user.name=User", "-c", "user.email=user@example.com", "commit", "-q", "-m", "initial")
		testkit.Git(t, dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", src, name)
	}
	testkit.Git(t, dir, "-c", "user.name=User", "-c", "user.email=user@example.com", "commit", "-q", "-m", "submodules")
}
