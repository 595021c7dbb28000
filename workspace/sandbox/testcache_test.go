package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// countedTest is a test that counts its runs in ../../runs (outside its
// module, so not one of its inputs), reads testdata/in.txt and $MODE, and
// fails when either says "fail".
const countedTest = `package p

import (
	"os"
	"strings"
	"testing"
)

func TestP(t *testing.T) {
	f, err := os.OpenFile("../../runs", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("run\n")
	f.Close()
	in, err := os.ReadFile("testdata/in.txt")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("in %s mode %s", in, os.Getenv("MODE"))
	if strings.Contains(string(in), "fail") || os.Getenv("MODE") == "fail" {
		t.Fatal("told to fail")
	}
}
`

// gateFixture is a module m in a fixture's worktree, and the spec of a
// gate over it with a kept gate cache.
func gateFixture(t *testing.T) (*fixture, Spec) {
	t.Helper()
	if landlockVersion() < 1 {
		t.Fatal("this kernel has no Landlock")
	}
	cmd := exec.Command("go", "env", "GOCACHE")
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	t.Setenv("GOCACHE", strings.TrimSpace(string(out)))
	f := newFixture(t)
	if st := f.sb.Probe(context.Background()); !st.Available {
		t.Fatalf("probe: %v", st)
	}
	mustWrite(t, filepath.Join(f.dir, "m", "go.mod"), "module example.com/m\n\ngo 1.21\n")
	own := filepath.Join(t.TempDir(), "caches")
	return f, Spec{Command: "cd m && go test -json -vet=off ./...", Caches: f.sb.DefaultCaches(), OwnCaches: own,
		BuildCache: filepath.Join(own, "go-build"), Gate: true, GateCache: filepath.Join(t.TempDir(), "gate", "go-build"),
		Timeout: 5 * time.Minute}
}

// writeOld writes p, dated well before now: go keeps no result of a run
// that read a file changed within two seconds.
func writeOld(t *testing.T, p, content string, at time.Time) {
	t.Helper()
	mustWrite(t, p, content)
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
}

// TestGateKeepsTestResults: a gate run again over an unchanged package
// replays its passing result without running its test binary; a change
// of a file or a variable the test read runs it again; a failing test,
// or a run go would not cache (-count=1), is run every time.
func TestGateKeepsTestResults(t *testing.T) {
	f, spec := gateFixture(t)
	mustWrite(t, filepath.Join(f.dir, "m", "p", "p_test.go"), countedTest)
	in := filepath.Join(f.dir, "m", "p", "testdata", "in.txt")
	first, second := time.Now().Add(-time.Hour).Truncate(time.Second), time.Now().Add(-2*time.Hour).Truncate(time.Second)
	writeOld(t, in, "one", first)
	runs := func() int {
		data, _ := os.ReadFile(filepath.Join(f.dir, "runs"))
		return strings.Count(string(data), "run\n")
	}
	for i, step := range []struct {
		name     string
		change   func(*Spec)
		runs     int
		fail     bool
		wantText string // in the output, replayed or not
	}{
		{"first", nil, 1, false, "in one mode"},
		{"unchanged", nil, 1, false, "in one mode"},
		{"unchanged again", nil, 1, false, "in one mode"},
		{"testdata changed", func(*Spec) { writeOld(t, in, "two", second) }, 2, false, "in two mode"},
		{"testdata same size and time, other contents", func(*Spec) { writeOld(t, in, "owt", second) }, 3, false, "in owt mode"},
		{"unchanged after it", nil, 3, false, "in owt mode"},
		{"variable changed", func(s *Spec) { s.Env = []string{"MODE=x"} }, 4, false, "in owt mode x"},
		{"unchanged after it", nil, 4, false, "in owt mode x"},
		{"count=1", func(s *Spec) { s.Command = strings.Replace(s.Command, "-json", "-json -count=1", 1) }, 5, false, "in owt mode x"},
		{"failing", func(s *Spec) {
			s.Command = strings.Replace(s.Command, " -count=1", "", 1)
			s.Env = []string{"MODE=fail"}
		}, 6, true, "told to fail"},
		{"failing again", nil, 7, true, "told to fail"},
		{"failing testdata", func(s *Spec) { s.Env = nil; writeOld(t, in, "fail", first) }, 8, true, "told to fail"},
		{"failing testdata again", nil, 9, true, "told to fail"},
		{"back to the first", func(*Spec) { writeOld(t, in, "one", first) }, 9, false, "in one mode"},
		{"file too new", func(*Spec) { mustWrite(t, in, "new") }, 10, false, "in new mode"},
	} {
		if step.change != nil {
			step.change(&spec)
		}
		res := f.run(t, spec)
		failed := res.ExitCode != 0 || strings.Contains(res.Stdout, `"Action":"fail"`)
		if got := runs(); got != step.runs || failed != step.fail || !strings.Contains(res.Stdout, step.wantText) {
			t.Fatalf("%d %s: %d runs (want %d), failed %v (want %v), %q in the output:\n%s\n%s", i, step.name, got, step.runs, failed, step.fail, step.wantText, res.Stdout, res.Stderr)
		}
		if !step.fail && !strings.Contains(res.Stdout, `"Action":"pass","Package":"example.com/m/p","Elapsed"`) {
			t.Fatalf("%d %s: go test does not report the package passed:\n%s", i, step.name, res.Stdout)
		}
	}
	// The results are in the gates' cache, and no agent command sees them.
	if ents, err := os.ReadDir(filepath.Join(spec.GateCache, testResultsDir)); err != nil || len(ents) == 0 {
		t.Errorf("no test results kept in the gates' cache: %v", err)
	}
	agent := f.run(t, Spec{Command: "ls /run/autarch-sandbox/gate-cache/" + testResultsDir + " " + filepath.Join(spec.GateCache, testResultsDir), OwnCaches: spec.OwnCaches, BuildCache: spec.BuildCache})
	if agent.ExitCode == 0 {
		t.Errorf("an agent's command sees the gates' test results: %s", agent.Stdout)
	}
}
