package git

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

func TestMain(m *testing.M) {
	// Isolate every git process (ours and the tests') from the machine's
	// configuration.
	os.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Exit(m.Run())
}

// gitT runs the git CLI for a test, as a user would (their identity, their
// hooks).
func gitT(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=User", "GIT_AUTHOR_EMAIL=user@example.com",
		"GIT_COMMITTER_NAME=User", "GIT_COMMITTER_EMAIL=user@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimRight(string(out), "\n")
}

// writeFile is testkit.WriteFile, the name this package's tests use.
func writeFile(tb testing.TB, path, content string) {
	tb.Helper()
	testkit.WriteFile(tb, path, content)
}

func readFile(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// userRepo makes the user's repository: two commits on main, hooks that
// leave a marker in hookDir whenever any of them runs, and a dirty state:
// a staged change, an unstaged change and an untracked file.
func userRepo(tb testing.TB) (dir, hookDir string) {
	tb.Helper()
	dir = filepath.Join(tb.TempDir(), "user repo")
	hookDir = tb.TempDir()
	gitT(tb, tb.TempDir(), "init", "-q", "-b", "main", dir)
	writeFile(tb, filepath.Join(dir, "README.md"), "# project\n")
	writeFile(tb, filepath.Join(dir, "main.go"), "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n")
	writeFile(tb, filepath.Join(dir, "lib", "lib.go"), "package lib\n\n// One is one.\nconst One = 1\n")
	writeFile(tb, filepath.Join(dir, "old.txt"), "to be removed\n")
	writeFile(tb, filepath.Join(dir, ".gitignore"), "*.log\n")
	gitT(tb, dir, "add", ".")
	gitT(tb, dir, "commit", "-q", "-m", "initial")
	writeFile(tb, filepath.Join(dir, "lib", "lib.go"), "package lib\n\n// One is one.\nconst One = 1\n\n// Two is two.\nconst Two = 2\n")
	gitT(tb, dir, "commit", "-q", "-am", "second")
	for _, h := range []string{"pre-commit", "commit-msg", "prepare-commit-msg", "post-commit", "post-checkout", "reference-transaction", "post-rewrite", "pre-auto-gc"} {
		script := fmt.Sprintf("#!/bin/sh\necho %s >> %q\n", h, filepath.Join(hookDir, "ran"))
		if err := os.WriteFile(filepath.Join(dir, ".git", "hooks", h), []byte(script), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	// The user's work in progress.
	writeFile(tb, filepath.Join(dir, "README.md"), "# project\n\nstaged edit\n")
	gitT(tb, dir, "add", "README.md")
	writeFile(tb, filepath.Join(dir, "main.go"), "package main\n\nfunc main() {\n\tprintln(\"unstaged\")\n}\n")
	writeFile(tb, filepath.Join(dir, "notes.txt"), "untracked\n")
	writeFile(tb, filepath.Join(dir, "debug.log"), "ignored\n")
	return dir, hookDir
}

// hooksRan returns what the marker file recorded.
func hooksRan(tb testing.TB, hookDir string) string {
	b, err := os.ReadFile(filepath.Join(hookDir, "ran"))
	if err != nil {
		return ""
	}
	return string(b)
}

// snapshot hashes the user's HEAD, index, main branch and every file of the
// working tree (names, modes, contents).
func snapshot(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	snap := map[string]string{}
	hash := func(b []byte) string {
		s := sha256.Sum256(b)
		return hex.EncodeToString(s[:])
	}
	for _, f := range []string{"HEAD", "index", "refs/heads/main", "config"} {
		b, err := os.ReadFile(filepath.Join(dir, ".git", f))
		if err != nil {
			tb.Fatal(err)
		}
		snap[".git/"+f] = hash(b)
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if rel == ".git" {
				return filepath.SkipDir
			}
			snap[rel+"/"] = "dir"
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		snap[rel] = fmt.Sprintf("%v %s", info.Mode(), hash(b))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return snap
}

func sameSnapshot(tb testing.TB, when string, before, after map[string]string) {
	tb.Helper()
	var diffs []string
	for k, v := range before {
		if after[k] != v {
			diffs = append(diffs, fmt.Sprintf("%s: %q → %q", k, v, after[k]))
		}
	}
	for k, v := range after {
		if _, ok := before[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: new %q", k, v))
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		tb.Fatalf("%s: the user's HEAD, index or working tree changed:\n%s", when, strings.Join(diffs, "\n"))
	}
}

func openRepo(tb testing.TB, dir string) *Repo {
	tb.Helper()
	r, err := Open(context.Background(), dir, Config{})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// refs lists the repository's branches.
func branches(tb testing.TB, dir string) []string {
	out := gitT(tb, dir, "for-each-ref", "--format=%(refname:short)", "refs/heads/")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}
