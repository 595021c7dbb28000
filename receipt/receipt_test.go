package receipt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/verify"
	"github.com/autarch-dev/autarch/workspace/git"
)

func TestMain(m *testing.M) {
	os.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Exit(m.Run())
}

// repoWith makes a repository with a first commit and a second one adding
// files; it returns the repository and the second commit.
func repoWith(tb testing.TB, files map[string]string) (*git.Repo, string) {
	tb.Helper()
	dir := testkit.NewRepo(tb, map[string]string{"README": "hi\n"})
	testkit.WriteFiles(tb, dir, files)
	commit := testkit.CommitAll(tb, dir, "feat: files")
	repo, err := git.Open(context.Background(), dir, git.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	return repo, commit
}

// sandboxGates runs gates as a pulse's, in the real sandbox.
func sandboxGates(tb testing.TB, repo *git.Repo) GateFunc {
	tb.Helper()
	policy, err := tools.CommandPolicyFromEnv()
	if err != nil {
		tb.Fatal(err)
	}
	return SessionGates(tools.SessionConfig{Mode: tools.ModeYolo, Commands: policy, GitCommonDir: repo.CommonDir()})
}

// runOn runs gates on a temporary worktree of commit, as the pulse ran
// them on its own, and records the receipt.
func runOn(tb testing.TB, repo *git.Repo, commit string, g verify.Gates, gates GateFunc) Receipt {
	tb.Helper()
	ctx := context.Background()
	dir := filepath.Join(tb.TempDir(), "wt")
	if err := repo.EnsureLinkedWorktree(ctx, dir, commit, ""); err != nil {
		tb.Fatal(err)
	}
	defer repo.RemoveLinkedWorktree(ctx, dir)
	_, parent, err := repo.TreeOf(ctx, commit)
	if err != nil {
		tb.Fatal(err)
	}
	changed, err := repo.ChangedPaths(ctx, dir, parent)
	if err != nil {
		tb.Fatal(err)
	}
	run, err := gates(ctx, dir, g, changed, nil)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := Record(ctx, repo, Subject{Kind: Pulse, Commit: commit, Run: Run{Kind: "workflow", ID: "w1", Step: "pulse-1"}, Gates: g}, run)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// TestVerifyRunsOnlyTrustedCommands: a configured gate command recorded in
// a receipt runs again only when the configuration trusted here has the
// same command; a receipt cannot make verify run a command of its own.
func TestVerifyRunsOnlyTrustedCommands(t *testing.T) {
	repo, commit := repoWith(t, map[string]string{"a.txt": "a\n"})
	gates := sandboxGates(t, repo)
	const cmd = "test -f a.txt"
	g := verify.Gates{Kinds: []verify.Kind{verify.Test}, Commands: map[verify.Kind]string{verify.Test: cmd}}
	rec := runOn(t, repo, commit, g, gates)
	if len(rec.Checks) != 1 || rec.Checks[0].Status != verify.StatusPass || rec.Checks[0].Command != cmd {
		t.Fatalf("recorded checks = %+v", rec.Checks)
	}
	ctx := context.Background()
	tests := []struct {
		name    string
		trusted map[verify.Kind]string
		ok      bool
		want    string
	}{
		{"trusted", map[verify.Kind]string{verify.Test: cmd}, true, ""},
		{"untrusted", nil, false, "is not in the configuration you trust here"},
		{"another command trusted", map[verify.Kind]string{verify.Test: "make test"}, false, "run autarch trust"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Verify(ctx, repo, commit, Options{Gates: gates, Config: verify.Gates{Commands: tt.trusted}})
			if err != nil {
				t.Fatal(err)
			}
			if res.OK != tt.ok || !strings.Contains(strings.Join(res.Differences, "\n"), tt.want) {
				t.Errorf("OK = %v, differences:\n%s", res.OK, res.Text())
			}
		})
	}
}

// TestSandboxCannotForgeReceipts: a gate command (as any agent's command)
// cannot write refs/notes/autarch: the repository's refs and objects are
// read-only in the sandbox.
func TestSandboxCannotForgeReceipts(t *testing.T) {
	repo, commit := repoWith(t, map[string]string{"a.txt": "a\n"})
	// git works in the sandbox: reading the repository passes.
	read := runOn(t, repo, commit, verify.Gates{Kinds: []verify.Kind{verify.Test},
		Commands: map[verify.Kind]string{verify.Test: "git rev-parse HEAD && git log -1"}}, sandboxGates(t, repo))
	if read.Checks[0].Status != verify.StatusPass {
		t.Fatalf("git cannot read the repository in the sandbox: %+v", read.Checks)
	}
	forge := "git notes --ref refs/notes/autarch add -f -m '{\"version\":1}' HEAD; git update-ref refs/notes/autarch HEAD"
	g := verify.Gates{Kinds: []verify.Kind{verify.Test}, Commands: map[verify.Kind]string{verify.Test: forge}}
	runOn(t, repo, commit, g, sandboxGates(t, repo))
	// Only our own note exists: the receipt written by Record, on commit.
	data, ok, err := repo.Note(context.Background(), commit)
	if err != nil || !ok {
		t.Fatalf("note = %v, %v", ok, err)
	}
	r, err := Parse(data)
	if err != nil || r.Checks[0].Status == verify.StatusPass {
		t.Errorf("the forging command passed (it wrote a ref?): %+v, %v", r.Checks, err)
	}
	// Two receipts written by Record (the read check's, the forger's), by
	// Autarch's identity; a forged note or a moved ref would show.
	want := "Autarch: Notes added by 'git notes add'\nAutarch: Notes added by 'git notes add'"
	if log := strings.TrimSpace(testkit.Git(t, repo.Top(), "log", "--format=%an: %s", git.NotesRef)); log != want {
		t.Errorf("refs/notes/autarch has commits from elsewhere:\n%s", log)
	}
}

// TestChecksOfSplitsFindings: failures are newly failing or pre-existing
// (naming the baseline they matched), baselines no check matched are
// newly passing, signatures ignore line numbers and timings.
func TestChecksOfSplitsFindings(t *testing.T) {
	baselines := []tools.Baseline{
		{ID: "baseline-1", Source: "Test", Pattern: "TestOld", FilePath: "old_test.go"},
		{ID: "baseline-2", Source: "Lint", Pattern: "unused variable", FilePath: "gone.go"},
		{ID: "baseline-3", Source: "Build", Pattern: "never built"},
	}
	report := func(line int, d time.Duration) verify.Report {
		r := verify.Report{Check: "go test", Kind: verify.Test, Dir: ".", Command: "go test ./...", Status: verify.StatusFail, ExitCode: 1, Duration: d,
			Failures:            []verify.TestFailure{{Name: "TestNew", File: "new_test.go", Line: line, Message: "got 1 in 0.01s"}},
			PreExistingFailures: []verify.TestFailure{{Name: "TestOld", File: "old_test.go", Line: line}}}
		return r
	}
	lint := verify.Report{Check: "go vet", Kind: verify.Lint, Dir: ".", Status: verify.StatusPass}
	checks, passing := checksOf(verify.GateRun{Reports: []verify.Report{report(7, time.Second), lint}}, baselines)
	if len(checks) != 2 || len(checks[0].NewlyFailing) != 1 || checks[0].NewlyFailing[0].Test != "TestNew" || checks[0].ExitCode != 1 {
		t.Fatalf("checks = %+v", checks)
	}
	if pre := checks[0].PreExisting; len(pre) != 1 || pre[0].Baseline != "baseline-1" {
		t.Errorf("pre-existing = %+v", pre)
	}
	if len(passing) != 1 || passing[0].Baseline != "baseline-2" {
		t.Errorf("newly passing = %+v, want baseline-2 (lint ran, matched nothing; no build ran)", passing)
	}
	again, _ := checksOf(verify.GateRun{Reports: []verify.Report{report(9, 3*time.Second)}}, baselines)
	if again[0].NewlyFailing[0].Signature != checks[0].NewlyFailing[0].Signature {
		t.Errorf("a finding's signature depends on its line or timing")
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tt := range []struct{ name, note, want string }{
		{"newer", `{"version": 2, "commit": "a", "tree": "b", "autarch": "v9"}`, "upgrade Autarch"},
		{"not json", `hello`, "not a receipt"},
		{"no commit", `{"version": 1}`, "no version, commit or tree"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Parse([]byte(tt.note)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestVerifyWithoutReceipt: a commit with no note says how to fetch them.
func TestVerifyWithoutReceipt(t *testing.T) {
	repo, commit := repoWith(t, map[string]string{"a.txt": "a\n"})
	_, err := Verify(context.Background(), repo, commit, Options{Gates: sandboxGates(t, repo)})
	if err == nil || !strings.Contains(err.Error(), "has no receipt") || !strings.Contains(err.Error(), git.NotesRefspec) {
		t.Errorf("Verify = %v", err)
	}
}

// TestVerifyGatesOff: a receipt that says the gates were off holds only
// where they are off too.
func TestVerifyGatesOff(t *testing.T) {
	repo, commit := repoWith(t, map[string]string{"a.txt": "a\n"})
	gates := sandboxGates(t, repo)
	runOn(t, repo, commit, verify.Gates{Off: true}, gates)
	ctx := context.Background()
	for _, off := range []bool{false, true} {
		res, err := Verify(ctx, repo, commit, Options{Gates: gates, Config: verify.Gates{Off: off}})
		if err != nil || res.OK != off {
			t.Errorf("gates off here %v: OK = %v, %v\n%s", off, res.OK, err, res.Text())
		}
	}
}

// TestVerifyTreeChangedByGates: a gate command that rewrites a file of
// the commit it verifies (as a test repairing a broken source before its
// package compiles would) fails the verification, though the command
// passes.
func TestVerifyTreeChangedByGates(t *testing.T) {
	repo, commit := repoWith(t, map[string]string{"a.txt": "a\n"})
	gates := sandboxGates(t, repo)
	const cmd = "grep -q a a.txt && echo repaired > a.txt"
	g := verify.Gates{Kinds: []verify.Kind{verify.Test}, Commands: map[verify.Kind]string{verify.Test: cmd}}
	rec := runOn(t, repo, commit, g, gates)
	if len(rec.Checks) != 1 || rec.Checks[0].Status != verify.StatusPass {
		t.Fatalf("recorded checks = %+v", rec.Checks)
	}
	res, err := Verify(context.Background(), repo, commit, Options{Gates: gates, Config: verify.Gates{Commands: g.Commands}})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || !strings.Contains(strings.Join(res.Differences, "\n"), "changed a.txt of the commit while they ran") {
		t.Errorf("OK = %v, differences:\n%s", res.OK, res.Text())
	}
}
