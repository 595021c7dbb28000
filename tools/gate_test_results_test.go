package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/tools/verify"
)

// countedPackage is a package whose test counts its runs in runs.txt at
// the module's root (with syscall.Open, which the test log does not
// record: not one of its inputs) and fails when testdata/in.txt says so.
var countedPackage = map[string]string{
	"p/p.go": "package p\n",
	"p/p_test.go": `package p

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

func TestP(t *testing.T) {
	fd, err := syscall.Open("../runs.txt", syscall.O_WRONLY|syscall.O_APPEND|syscall.O_CREAT, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	syscall.Write(fd, []byte("run\n"))
	syscall.Close(fd)
	in, err := os.ReadFile("testdata/in.txt")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(in), "fail") {
		t.Fatal("told to fail")
	}
}
`,
}

// TestGatesKeepTestResults: a full gate run again over an unchanged
// module runs no test binary again and reports the same; a change of a
// file the test reads runs it again; a failing test runs every time and
// is never reported as passing.
func TestGatesKeepTestResults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests under bwrap")
	}
	a := newAttackWorkspace(t)
	writeFiles(t, a.ws, map[string]string{"go.mod": "module example.com/a\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n"})
	writeFiles(t, a.ws, countedPackage)
	in := filepath.Join(a.ws, "p", "testdata", "in.txt")
	setInput := func(content string, at time.Time) {
		t.Helper()
		writeFiles(t, a.ws, map[string]string{"p/testdata/in.txt": content})
		if err := os.Chtimes(in, at, at); err != nil {
			t.Fatal(err)
		}
	}
	setInput("ok", time.Now().Add(-time.Hour))
	h := newHarness(t, "pulsing", SessionConfig{Root: a.ws})
	runs := func() int {
		data, _ := os.ReadFile(filepath.Join(a.ws, "runs.txt"))
		return strings.Count(string(data), "run\n")
	}
	for i, step := range []struct {
		name   string
		change func()
		runs   int
		fail   bool
	}{
		{"first", nil, 1, false},
		{"unchanged", nil, 1, false},
		{"testdata changed", func() { setInput("ok again", time.Now().Add(-2*time.Hour)) }, 2, false},
		{"unchanged after it", nil, 2, false},
		{"failing", func() { setInput("fail", time.Now().Add(-3*time.Hour)) }, 3, true},
		{"failing again", nil, 4, true},
	} {
		if step.change != nil {
			step.change()
		}
		run := h.s.QualityGates(context.Background(), verify.Gates{Kinds: []verify.Kind{verify.Test}, Full: true}, []string{"p/p_test.go"})
		if len(run.Reports) != 1 {
			t.Fatalf("%d %s: reports %+v", i, step.name, run.Reports)
		}
		r := run.Reports[0]
		if got := runs(); got != step.runs || run.Failed() != step.fail {
			t.Fatalf("%d %s: %d runs (want %d), failed %v (want %v): %+v\n%s", i, step.name, got, step.runs, run.Failed(), step.fail, r, r.Output)
		}
		if step.fail && (r.Failed != 1 || len(r.Failures) != 1 || !strings.HasSuffix(r.Failures[0].Name, "/p.TestP")) {
			t.Errorf("%d %s: the failure is not reported: %+v", i, step.name, r)
		}
		if !step.fail && (r.Passed != 1 || r.Failed != 0 || r.Status != "pass") {
			t.Errorf("%d %s: the pass is not reported as before: %+v\n%s", i, step.name, r, r.Output)
		}
	}
}
