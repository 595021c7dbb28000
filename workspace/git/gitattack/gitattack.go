// Package gitattack plants, in a work tree, what an agent can create to
// make Autarch's own host-side git run a program: nested repositories with
// filter drivers or an fsmonitor in their config (directly or through
// include.path), .git files naming a directory the agent made, gitlinks
// registered with update-index, drivers selected by .gitattributes, a
// repository made of a plain folder. Each attack's program creates a
// marker file outside the tree; the tests of Autarch's git operations
// assert the marker never appears. It is test support: nothing in Autarch
// imports it.
package gitattack

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// Attack plants one attack in the work tree wt (a linked worktree of a
// repository, or its main work tree) so that the program it installs
// creates marker when run. Plant leaves a tracked file changed, so there is
// always something to commit, and removes marker if planting itself ran
// the program.
type Attack struct {
	Name  string
	Plant func(tb testing.TB, wt, marker string)
}

// Program writes, outside any tree, an executable that creates marker and
// copies stdin to stdout (a usable clean filter), and returns its path.
func Program(tb testing.TB, marker string) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "evil.sh")
	script := fmt.Sprintf("#!/bin/sh\ntouch '%s'\ncat\n", marker)
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		tb.Fatal(err)
	}
	return p
}

// Git runs git as the agent would in its sandbox: its own environment,
// no global or system configuration.
func Git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	env := []string{"GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Agent", "GIT_AUTHOR_EMAIL=agent@example.com", "GIT_COMMITTER_NAME=Agent", "GIT_COMMITTER_EMAIL=agent@example.com"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Ran reports whether marker exists.
func Ran(marker string) bool {
	_, err := os.Lstat(marker)
	return err == nil
}

// nested makes wt/sub a repository with one committed file f.txt, applies
// configure to its config (git config args), commits a .gitattributes
// selecting driver x for every file, dirties f.txt and registers sub as a
// gitlink in wt's index. gitDir, when not "", is where the repository's
// git directory goes (sub/.git is then a file naming it).
func nested(tb testing.TB, wt, marker, gitDir string, configure ...[]string) {
	tb.Helper()
	sub := filepath.Join(wt, "sub")
	if gitDir == "" {
		Git(tb, wt, "init", "-q", "sub")
	} else {
		if err := os.MkdirAll(filepath.Dir(gitDir), 0o755); err != nil {
			tb.Fatal(err)
		}
		Git(tb, wt, "init", "-q", "--separate-git-dir", gitDir, "sub")
	}
	testkit.WriteFile(tb, filepath.Join(sub, "f.txt"), "one\n")
	testkit.WriteFile(tb, filepath.Join(sub, ".gitattributes"), "* filter=x diff=x\n")
	Git(tb, sub, "add", "-A")
	Git(tb, sub, "commit", "-q", "-m", "nested")
	for _, c := range configure {
		Git(tb, sub, append([]string{"config"}, c...)...)
	}
	testkit.WriteFile(tb, filepath.Join(sub, "f.txt"), "two\n")
	head := Git(tb, sub, "rev-parse", "HEAD")
	Git(tb, wt, "update-index", "--add", "--cacheinfo", "160000,"+head+",sub")
	touchTracked(tb, wt)
	os.Remove(marker)
}

// touchTracked changes (or creates) a plain file of the tree.
func touchTracked(tb testing.TB, wt string) {
	tb.Helper()
	testkit.WriteFile(tb, filepath.Join(wt, "agent.txt"), "the agent's change\n")
}

// Attacks are the attacks on a work tree Autarch runs git on.
func Attacks() []Attack {
	return []Attack{
		{"nested repository with filter.clean, registered as a gitlink", func(tb testing.TB, wt, marker string) {
			nested(tb, wt, marker, "", []string{"filter.x.clean", Program(tb, marker)})
		}},
		{"nested repository with filter.process", func(tb testing.TB, wt, marker string) {
			nested(tb, wt, marker, "", []string{"filter.x.process", Program(tb, marker)})
		}},
		{"nested repository with a filter through include.path", func(tb testing.TB, wt, marker string) {
			inc := filepath.Join(wt, ".agent.cfg")
			testkit.WriteFile(tb, inc, fmt.Sprintf("[filter \"x\"]\n\tclean = %s\n[diff \"x\"]\n\ttextconv = %s\n", Program(tb, marker), Program(tb, marker)))
			nested(tb, wt, marker, "", []string{"include.path", inc})
		}},
		{".git file naming a directory the agent made", func(tb testing.TB, wt, marker string) {
			nested(tb, wt, marker, filepath.Join(wt, ".hidden", "store"), []string{"filter.x.clean", Program(tb, marker)})
		}},
		{"core.fsmonitor in a nested repository's config", func(tb testing.TB, wt, marker string) {
			nested(tb, wt, marker, "", []string{"core.fsmonitor", Program(tb, marker)})
		}},
		{"untracked nested repository (git add would make it a gitlink)", func(tb testing.TB, wt, marker string) {
			sub := filepath.Join(wt, "deep", "sub")
			Git(tb, wt, "init", "-q", sub)
			testkit.WriteFile(tb, filepath.Join(sub, "f.txt"), "one\n")
			testkit.WriteFile(tb, filepath.Join(sub, ".gitattributes"), "* filter=x\n")
			Git(tb, sub, "add", "-A")
			Git(tb, sub, "commit", "-q", "-m", "nested")
			Git(tb, sub, "config", "filter.x.clean", Program(tb, marker))
			Git(tb, sub, "config", "core.fsmonitor", Program(tb, marker))
			testkit.WriteFile(tb, filepath.Join(sub, "f.txt"), "two\n")
			touchTracked(tb, wt)
			os.Remove(marker)
		}},
		{"drivers of the user's global config selected by the agent's .gitattributes (filter, textconv, diff.external)", func(tb testing.TB, wt, marker string) {
			prog := Program(tb, marker)
			global := filepath.Join(tb.TempDir(), "gitconfig")
			testkit.WriteFile(tb, global, fmt.Sprintf("[filter \"x\"]\n\tclean = %s\n\tprocess = %s\n[diff \"x\"]\n\ttextconv = %s\n[diff]\n\texternal = %s\n", prog, prog, prog, prog))
			testkit.WriteFile(tb, filepath.Join(wt, ".gitattributes"), "* filter=x diff=x\n")
			touchTracked(tb, wt)
			tb.Setenv("GIT_CONFIG_GLOBAL", global)
		}},
		{"GIT_CONFIG_PARAMETERS and GIT_EXTERNAL_DIFF in Autarch's own environment", func(tb testing.TB, wt, marker string) {
			prog := Program(tb, marker)
			testkit.WriteFile(tb, filepath.Join(wt, ".gitattributes"), "* filter=y diff=y\n")
			touchTracked(tb, wt)
			tb.Setenv("GIT_CONFIG_PARAMETERS", fmt.Sprintf("'filter.y.clean'='%s' 'diff.y.textconv'='%s'", prog, prog))
			tb.Setenv("GIT_EXTERNAL_DIFF", prog)
		}},
	}
}

// PlainFolderRepo makes the plain folder dir a repository as an agent
// would (git init inside its sandbox): core.worktree pointing outside, a
// clean filter, a tracked file left dirty so that git status runs the
// filter. The outside directory is returned.
func PlainFolderRepo(tb testing.TB, dir, marker string) string {
	tb.Helper()
	outside := tb.TempDir()
	testkit.WriteFile(tb, filepath.Join(dir, "f.txt"), "one\n")
	testkit.WriteFile(tb, filepath.Join(dir, ".gitattributes"), "* filter=x\n")
	Git(tb, dir, "init", "-q")
	Git(tb, dir, "add", "-A")
	Git(tb, dir, "commit", "-q", "-m", "planted")
	Git(tb, dir, "config", "filter.x.clean", Program(tb, marker))
	testkit.WriteFile(tb, filepath.Join(dir, "f.txt"), "two\n")
	testkit.WriteFile(tb, filepath.Join(outside, "f.txt"), "outside\n")
	testkit.WriteFile(tb, filepath.Join(outside, ".gitattributes"), "* filter=x\n")
	Git(tb, dir, "config", "core.worktree", outside)
	os.Remove(marker)
	return outside
}
