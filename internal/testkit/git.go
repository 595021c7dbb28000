package testkit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Git runs git with args in dir and returns its combined output; it fails
// t when git fails.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// WriteFiles writes files (slash-separated paths relative to dir, and
// their contents) below dir, making the folders they need.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		WriteFile(t, filepath.Join(dir, filepath.FromSlash(rel)), content)
	}
}

// WriteFile writes content to the file at path, making the folders it
// needs.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Commit initialises a repository in dir on branch main (when it has
// none) and commits everything in it as "initial" by User
// <user@example.com>, even when there is nothing to commit.
func Commit(t testing.TB, dir string) {
	t.Helper()
	CommitAll(t, dir, "initial")
}

// CommitAll is Commit with the commit message message; it returns the
// new commit's id.
func CommitAll(t testing.TB, dir, message string) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		Git(t, dir, "init", "-q", "-b", "main")
	}
	Git(t, dir, "add", "-A")
	Git(t, dir, "-c", "user.name=User", "-c", "user.email=user@example.com", "commit", "-q", "--allow-empty", "-m", message)
	return strings.TrimSpace(Git(t, dir, "rev-parse", "HEAD"))
}

// NewRepo is a new git repository in a temporary folder holding files,
// committed on main (see Commit).
func NewRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	WriteFiles(t, dir, files)
	Commit(t, dir)
	return dir
}

// UserTreeHash fingerprints what the user owns in the repository at dir:
// HEAD, the index (its entries and its bytes) and every file of the
// working tree outside .git.
func UserTreeHash(t testing.TB, dir string) string {
	t.Helper()
	h := sha256.New()
	fmt.Fprintln(h, Git(t, dir, "symbolic-ref", "HEAD"), Git(t, dir, "rev-parse", "HEAD"), Git(t, dir, "ls-files", "--stage"))
	idx, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	h.Write(idx)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s %x\n", p, sha256.Sum256(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
