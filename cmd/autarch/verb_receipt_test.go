package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/receipt"
	"github.com/autarch-dev/autarch/workspace/git"
)

// depSource is example.com/dep's code as published, and as changed later
// in the module cache (the dependency change a receipt must catch).
const (
	depSource  = "package dep\n\n// Twice doubles x.\nfunc Twice(x int) int { return 2 * x }\n"
	depChanged = "package dep\n\n// Twice doubles x.\nfunc Twice(x int) int { return 2*x + 1 }\n"
	depGoMod   = "module example.com/dep\n\ngo 1.22\n"
)

// hash1 is the go.sum hash ("h1:") of files (name → content).
func hash1(files map[string]string) string {
	h := sha256.New()
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range files {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Fprintf(h, "%x  %s\n", sha256.Sum256([]byte(files[name])), name)
	}
	return "h1:" + base64.StdEncoding.EncodeToString(h.Sum(nil))
}

// depModCache makes a Go module cache holding example.com/dep v1.0.0 and
// points this process (and so the sandbox) at it, offline; it returns
// the go.sum lines for the dependency and the cached source file.
func depModCache(t *testing.T) (goSum, depFile string) {
	t.Helper()
	cache := t.TempDir()
	dl := filepath.Join(cache, "cache", "download", "example.com", "dep", "@v")
	src := filepath.Join(cache, "example.com", "dep@v1.0.0")
	zipHash := hash1(map[string]string{"example.com/dep@v1.0.0/dep.go": depSource, "example.com/dep@v1.0.0/go.mod": depGoMod})
	files := map[string]string{
		filepath.Join(dl, "v1.0.0.mod"):     depGoMod,
		filepath.Join(dl, "v1.0.0.info"):    `{"Version":"v1.0.0","Time":"2026-01-01T00:00:00Z"}`,
		filepath.Join(dl, "v1.0.0.ziphash"): zipHash,
		filepath.Join(src, "go.mod"):        depGoMod,
		filepath.Join(src, "dep.go"):        depSource,
	}
	for p, data := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range map[string]string{"GOMODCACHE": cache, "GOPROXY": "off", "GOSUMDB": "off", "GOFLAGS": "-mod=readonly", "GOTOOLCHAIN": "local"} {
		t.Setenv(k, v)
	}
	goSum = fmt.Sprintf("example.com/dep v1.0.0 %s\nexample.com/dep v1.0.0/go.mod %s\n", zipHash, hash1(map[string]string{"go.mod": depGoMod}))
	return goSum, filepath.Join(src, "dep.go")
}

// TestReceipts runs a two-pulse workflow and checks the receipts of its
// checkpoints: each has one, naming its commit and tree and the gates
// that ran; verify passes on them, and fails on a tampered tree, on a
// receipt moved to another commit and after a dependency change that
// makes a gate fail.
func TestReceipts(t *testing.T) {
	goSum, depFile := depModCache(t)
	dir, steps := scriptedReceiptRepo(t, goSum)
	url, _ := scripted.Start(t, steps("", ""))
	for k, v := range map[string]string{"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "test", "AUTARCH_MODEL": "scripted"} {
		t.Setenv(k, v)
	}
	if code, _, stderr := run(t, "run", "--yes", "--root", dir, "--name", "calc-ops", "Add Triple and Quad"); code != 0 {
		t.Fatalf("autarch run: exit %d\n%s", code, stderr)
	}
	commits := strings.Fields(gitCmd(t, dir, "rev-list", "--reverse", "main..autarch/calc-ops"))
	if len(commits) != 2 {
		t.Fatalf("workflow commits = %v, want 2", commits)
	}
	for i, c := range commits {
		code, out, stderr := run(t, "receipt", "show", "--root", dir, "--json", c)
		if code != 0 {
			t.Fatalf("receipt show %s: exit %d\n%s", c, code, stderr)
		}
		var r receipt.Receipt
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("receipt show --json: %v\n%s", err, out)
		}
		tree := strings.TrimSpace(gitCmd(t, dir, "rev-parse", c+"^{tree}"))
		if r.Version != receipt.Version || r.Kind != receipt.Pulse || r.Commit != c || r.Tree != tree || r.Run.Step != fmt.Sprintf("pulse-%d", i+1) || r.Autarch == "" {
			t.Errorf("receipt of %s = %+v", c, r)
		}
		if r.DurationMS <= 0 || !slices.ContainsFunc(r.Checks, func(ch receipt.Check) bool {
			return ch.Name == "go test" && ch.Status == "pass" && ch.ExitCode == 0 && ch.Passed >= 2 && ch.Command != ""
		}) {
			t.Errorf("receipt of %s lacks a passing go test: %+v", c, r.Checks)
		}
		_, text, _ := run(t, "receipt", "show", "--root", dir, c)
		if !strings.Contains(text, "✓ test go test in .: pass, exit 0") {
			t.Errorf("receipt show %s:\n%s", c, text)
		}
	}
	head := commits[1]
	if code, out, stderr := run(t, "receipt", "verify", "--root", dir, head); code != 0 || !strings.Contains(out, "OK: the receipt holds") {
		t.Fatalf("receipt verify of the genuine checkpoint: exit %d\n%s%s", code, out, stderr)
	}
	if wts := gitCmd(t, dir, "worktree", "list"); strings.Contains(wts, ".receipts") {
		t.Errorf("verify left its worktree:\n%s", wts)
	}

	// A tampered tree: the checkpoint rewritten with other content under
	// its receipt.
	blob := strings.TrimSpace(gitCmdIn(t, dir, "package calc\n\nfunc Quad(x int) int { return 0 }\n", "hash-object", "-w", "--stdin"))
	tree := strings.TrimSpace(gitCmdIn(t, dir, "100644 blob "+blob+"\tquad.go\n", "mktree"))
	tampered := strings.TrimSpace(gitCmd(t, dir, "commit-tree", tree, "-p", commits[0], "-m", "feat(calc): add Quad"))
	gitCmd(t, dir, "notes", "--ref", git.NotesRef, "copy", head, tampered)
	code, out, _ := run(t, "receipt", "verify", "--root", dir, tampered)
	if code != 1 || !strings.Contains(out, "FAILED") || !strings.Contains(out, "the commit's tree is "+tree) {
		t.Errorf("verify of a tampered tree: exit %d\n%s", code, out)
	}

	// The receipt of pulse 2 moved onto pulse 1's commit.
	gitCmd(t, dir, "notes", "--ref", git.NotesRef, "copy", "-f", head, commits[0])
	code, out, _ = run(t, "receipt", "verify", "--root", dir, commits[0])
	if code != 1 || !strings.Contains(out, "copied from another commit") {
		t.Errorf("verify of a receipt moved to another commit: exit %d\n%s", code, out)
	}

	// The dependency changes in the module cache (same version, other
	// code): the tests that passed fail now.
	if err := os.WriteFile(depFile, []byte(depChanged), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "receipt", "verify", "--root", dir, head)
	if code != 1 || !strings.Contains(out, "test gate go test in .: recorded pass, now fail") || !strings.Contains(out, "TestQuad") {
		t.Errorf("verify after a dependency change: exit %d\n%s", code, out)
	}
	if code, _, stderr := run(t, "receipt", "verify", "--root", dir); code != 2 {
		t.Errorf("receipt verify without a commit: exit %d\n%s", code, stderr)
	}
}

// scriptedReceiptRepo is scriptedRepo for testdata/receipt.txt, with the
// dependency's go.sum committed too.
func scriptedReceiptRepo(t *testing.T, goSum string) (string, func(from, to string) *scripted.Script) {
	t.Helper()
	dir, steps := scriptedRepo(t, "testdata/receipt.txt")
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), []byte(goSum), 0o644); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, dir, "add", "go.sum")
	gitCmd(t, dir, "-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-q", "-m", "go.sum")
	return dir, steps
}

// gitCmdIn runs git in dir with stdin.
func gitCmdIn(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// TestJobCommitReceipt: a job's commit carries a receipt of the tests and
// linters commit_changes ran, and verify passes on it.
func TestJobCommitReceipt(t *testing.T) {
	dir, url, _ := scriptedProject(t, "testdata/job.txt", "", "")
	for k, v := range map[string]string{"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "test", "AUTARCH_MODEL": "scripted"} {
		t.Setenv(k, v)
	}
	if code, _, stderr := run(t, "job", "--yes", "--root", dir, "Fix Add: it subtracts"); code != 0 {
		t.Fatalf("autarch job: exit %d\n%s", code, stderr)
	}
	branch := strings.TrimSpace(gitCmd(t, dir, "for-each-ref", "--format=%(refname:short)", "refs/heads/ai/"))
	commit := strings.TrimSpace(gitCmd(t, dir, "rev-parse", branch))
	code, out, stderr := run(t, "receipt", "show", "--root", dir, "--json", commit)
	if code != 0 {
		t.Fatalf("receipt show: exit %d\n%s", code, stderr)
	}
	var r receipt.Receipt
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Kind != receipt.Job || r.Commit != commit || r.Run.Name != branch ||
		!slices.ContainsFunc(r.Checks, func(c receipt.Check) bool { return c.Kind == "test" && c.Status == "pass" && c.Passed == 1 }) {
		t.Errorf("the job commit's receipt = %s", out)
	}
	if code, out, stderr := run(t, "receipt", "verify", "--root", dir, commit); code != 0 {
		t.Errorf("receipt verify of the job's commit: exit %d\n%s%s", code, out, stderr)
	}
}
