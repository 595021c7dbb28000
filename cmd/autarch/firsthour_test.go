package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// A dry run records write calls without asking (it writes nothing) and
// says what it recorded, in words.
func TestToolDryRunRecordsWritesWithoutAsking(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644)
	for _, tc := range []struct {
		name, args string
		want       []string
	}{
		{"write_file", `{"path":"b.go","content":"package a\n","reason":"add b"}`,
			[]string{"Dry run: 1 action planned, none executed; nothing was changed.", "1. would write b.go (1 line, new file) — add b", "b.go: new file (1 line)"}},
		{"read_file", `{"path":"a.go","reason":"look"}`, []string{"Dry run: no write or command was planned, so nothing would change."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(t, "tool", "--root", dir, "--dry-run", tc.name, tc.args)
			if code != 0 || strings.Contains(out, "No TTY") || strings.Contains(errOut, "null") || strings.Contains(errOut, "call(s)") {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "b.go")); err == nil {
		t.Error("the dry run wrote b.go")
	}
}

// A headless run that needs an approval fails saying how to go on: --yes.
func TestRunWithoutATerminalSuggestsYes(t *testing.T) {
	bin := buildBinary(t)
	dir, _ := scriptedRepo(t, "testdata/run-full.txt")
	url, _ := testkit.StartScript(t, `the scope card, whose approval nobody can give
-- 01-scope.json --
{"tool_calls": [{"name": "submit_scope", "args": {"reason": "Clear", "title": "Add Sub", "description": "Add Sub.", "in_scope": ["Sub"], "out_of_scope": [], "recommended_path": "quick"}}]}
`)
	var stdout, stderr bytes.Buffer
	cmd := autarchCmd(context.Background(), bin, dir, url, "run", "--name", "calc-sub", "Add Sub to calc")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err == nil {
		t.Fatalf("the run succeeded without anyone to approve its scope:\n%s", stderr.String())
	}
	for _, want := range []string{"No TTY available for confirmation", "needs your approval, but stdin is not a terminal", "pass --yes", "autarch resume --yes calc-sub"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

// Reviewing an empty range says so and calls no model.
func TestReviewOfAnEmptyRangeCallsNoModel(t *testing.T) {
	bin := buildBinary(t)
	dir, _ := scriptedRepo(t, "testdata/review-branch.txt")
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, `{"error":{"message":"no model call was expected"}}`, http.StatusBadRequest)
	}))
	defer srv.Close()
	for _, args := range [][]string{{"review", "--base", "main"}, {"review", "--base", "main", "--json"}} {
		var stdout, stderr bytes.Buffer
		cmd := autarchCmd(context.Background(), bin, dir, srv.URL+"/v1", args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr.String())
		}
		if !strings.Contains(stdout.String(), "nothing to review: main and HEAD are the same commit") {
			t.Errorf("%v: stdout = %q", args, stdout.String())
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d model calls for an empty range", n)
	}
}

// A model call that fails through every retry names the network fault,
// shows each retry as activity, and the workflow is recorded as failed
// with a way to resume.
func TestRunShowsRetriesAndTheNetworkFault(t *testing.T) {
	bin := buildBinary(t)
	dir, steps := scriptedRepo(t, "testdata/run-full.txt")
	script := steps("", "")
	proxy := &scripted.Flaky{Next: scripted.NewServer(script), Pattern: []scripted.Fault{scripted.Cut}}
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	cmd := autarchCmd(context.Background(), bin, dir, srv.URL+"/v1", "run", "--yes", "--name", "cut", "Add Sub to calc")
	cmd.Env = append(cmd.Env, "AUTARCH_MODEL_RETRIES=2", "AUTARCH_MODEL_RETRY_DELAY=1ms")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err == nil {
		t.Fatalf("the run succeeded behind a proxy that cuts every answer")
	}
	for _, want := range []string{"↻ model stream cut after", "retrying 1/2 in", "retrying 2/2 in", "after 3 attempts",
		"■ workflow failed\n", "autarch: model call: model stream cut", "recorded as failed", "autarch resume cut"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if !strings.Contains(stdout.String(), "\tcut\tscoping\tFailed") {
		t.Errorf("stdout = %q", stdout.String())
	}
}
