package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// The run's log says stages and pulse steps in words, not in the events'
// internal names (issue 31.9).
func TestRunLogSpeaksWords(t *testing.T) {
	var errb bytes.Buffer
	io := stdio{err: &errb}
	for _, ev := range []workflow.Event{
		{Kind: "stage", Stage: "scoping", Text: "workflow calc-sub started"},
		{Kind: "stage", Stage: "research", From: "scoping", Text: "scoping → research"},
		{Kind: "stage", Stage: "preflight", From: "plan", Text: "plan → preflight"},
		{Kind: "stage", Stage: "preflight", Status: "running", Worktree: "/r/.git/autarch/worktrees/calc-sub", Text: "preflight in /r/.git/autarch/worktrees/calc-sub"},
		{Kind: "pulse", PulseID: "pulse-1", Status: "QualityGates", Text: "quality gates in 0s: build go build: pass"},
		{Kind: "pulse", PulseID: "pulse-1", Status: "CompletionRejected", Text: "run the tests first"},
		{Kind: "pulse", PulseID: "pulse-2", Status: "Conflict", Text: "re-run on the new head: calc.go changed"},
	} {
		printEvent(io, ev)
	}
	got := errb.String()
	for _, want := range []string{"▶ scoping: workflow calc-sub started\n", "▶ research\n", "▶ preflight\n",
		"  preflight checks the build in the workflow's worktree, /r/.git/autarch/worktrees/calc-sub\n",
		"◆ pulse pulse-1 quality gates in 0s: build go build: pass\n", "◆ pulse pulse-1 completion sent back to the agent: run the tests first\n",
		"◆ pulse pulse-2 conflict: re-run on the new head: calc.go changed\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
	for _, internal := range []string{"preflight preflight", "qualitygates", "completionrejected", "→", "scoping workflow"} {
		if strings.Contains(strings.ToLower(got), internal) {
			t.Errorf("log shows %q:\n%s", internal, got)
		}
	}
}

// How a run ended is said with the workflow's stage, never "halted in :".
func TestEndWords(t *testing.T) {
	tests := []struct {
		wf   store.Workflow
		err  error
		want string
	}{
		{store.Workflow{ID: "wf-1", Name: "calc", Stage: "pulsing", Status: store.WorkflowStopped, StatusReason: "stopped by the user"},
			&workflow.Halt{Status: workflow.PulseStopped, Reason: "the workflow was stopped"},
			"workflow calc was stopped in pulsing (stopped by the user); its work so far is kept"},
		{store.Workflow{Name: "calc", Stage: "pulsing", Status: store.WorkflowStopped, StatusReason: "stopped by the user"},
			&workflow.Halt{Pulse: "pulse-2", Status: workflow.PulseStopped, Reason: "the workflow was stopped"},
			"workflow calc was stopped at pulse pulse-2 (stopped by the user); its work so far is kept"},
		{store.Workflow{Name: "calc", Stage: "pulsing", Status: store.WorkflowHalted},
			&workflow.Halt{Pulse: "pulse-1", Status: workflow.PulseFailed, Reason: "tests fail"},
			"workflow calc halted at pulse pulse-1 (failed): tests fail"},
		{store.Workflow{Name: "calc", Stage: "preflight", Status: store.WorkflowHalted},
			&workflow.Halt{Stage: workflow.StagePreflight, Reason: "the build fails"},
			"workflow calc halted in preflight: the build fails"},
		{store.Workflow{Name: "calc"}, fmt.Errorf("model call: %w", errors.New("refused")), "model call: refused"},
	}
	for _, tt := range tests {
		if got := endWords(tt.wf, tt.err); got != tt.want {
			t.Errorf("endWords(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
	var out, errb bytes.Buffer
	runResult(stdio{out: &out, err: &errb}, tests[0].wf, tests[0].err)
	if strings.Contains(errb.String(), "halted in :") || !strings.Contains(errb.String(), "continue with: autarch resume calc") {
		t.Errorf("runResult of a stop:\n%s", errb.String())
	}
}

// A folder outside git and a repository without a commit get a message
// that says what happened and what to do (issue 31.9).
func TestNoRepositoryNoCommit(t *testing.T) {
	loose := t.TempDir()
	for _, verb := range []string{"status", "stop"} {
		args := []string{verb, "--root", loose}
		if verb == "stop" {
			args = append(args, "x")
		}
		code, _, errOut := run(t, args...)
		if code != 1 || !strings.Contains(errOut, "is not in a git repository: Autarch works on branches of a git repository") ||
			!strings.Contains(errOut, "git init && git add -A && git commit -m initial") || strings.Contains(errOut, "rev-parse") {
			t.Errorf("%s in a loose folder: exit %d, stderr %q", verb, code, errOut)
		}
	}
	empty := t.TempDir()
	gitCmd(t, empty, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(empty, "a.go"), []byte("package a\n"), 0o644)
	code, _, errOut := run(t, "run", "--root", empty, "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "Add Sub")
	if code != 1 || !strings.Contains(errOut, "has no commit yet: a workflow starts from a commit") || !strings.Contains(errOut, "git add -A && git commit -m initial") {
		t.Errorf("run in a repository without a commit: exit %d, stderr %q", code, errOut)
	}
}

// A search that finds nothing says so, and what to try (issue 31.9).
func TestSearchSaysNothingMatches(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, "search", "--root", dir, "subtract two numbers")
	if code != 0 || out != "" || !strings.Contains(errOut, `nothing matches "subtract two numbers": the index holds no files`) {
		t.Errorf("empty folder: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc Add(a, b int) int { return a + b }\n"), 0o644)
	code, out, errOut = run(t, "search", "--root", dir, "--weight", "**/*.go:0", "Add")
	if code != 0 || out != "" || !strings.Contains(errOut, `nothing matches "Add" in the 1 file indexed`) || !strings.Contains(errOut, "--weight") {
		t.Errorf("excluded by weight: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// Under autarch run --yes without a terminal, an agent that keeps
// answering in prose meets the nudge limit: its messages are not
// auto-answered forever (issue 31.15).
func TestRunYesKeepsTheNudgeLimit(t *testing.T) {
	bin := buildBinary(t)
	dir, _ := scriptedRepo(t, "testdata/run-full.txt")
	prose := `{"text": "I looked at calc.go. It holds Add. Sub would go after it."}`
	url, srv := testkit.StartScript(t, "the scoping agent answers in prose, again and again\n"+
		"-- 01-prose.json --\n"+prose+"\n-- 02-prose.json --\n"+prose+"\n-- 03-prose.json --\n"+prose+
		"\n-- 04-prose.json --\n{\"expect\": {\"lastUserContains\": \"End your turn by calling one of\"}, \"text\": \"Sub goes after Add.\"}\n")
	var stdout, stderr bytes.Buffer
	cmd := autarchCmd(context.Background(), bin, dir, url, "run", "--yes", "--name", "prose", "Add Sub to calc")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err == nil {
		t.Fatalf("the run succeeded:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "the scoping agent kept answering in prose instead of finishing with") {
		t.Errorf("the run did not end at the nudge limit:\n%s", stderr.String())
	}
	if errs := srv.Errors(); len(errs) > 0 || srv.Remaining() != 0 {
		t.Errorf("model calls: %d steps left, errors %q", srv.Remaining(), errs)
	}
}

// lockedBuffer is a bytes.Buffer a child process writes while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// openPTY opens a pseudo-terminal: a child whose stdin is tty reads it as
// a terminal (and waits at its prompts); nothing is typed on pty.
func openPTY(t *testing.T) (pty, tty *os.File) {
	t.Helper()
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { pty.Close() })
	if err := unix.IoctlSetPointerInt(int(pty.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(pty.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return pty, tty
}

// waitUntil polls cond every 20 ms until it holds or the deadline passes.
func waitUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	testkit.CheckFor(t, d, 20*time.Millisecond, func() error {
		if !cond() {
			return errors.New(what)
		}
		return nil
	})
}

// autarch stop from a second terminal ends the first terminal's run that
// waits at its prompt, which says so and how to resume; autarch resume
// then continues the workflow (issue 31.7).
func TestStopEndsARunWaitingAtItsPrompt(t *testing.T) {
	bin := buildBinary(t)
	dir, steps := scriptedRepo(t, "testdata/run-full.txt")
	url, _ := testkit.StartScript(t, "the scope card waits for the person at the terminal\n-- 01-scope.json --\n"+
		`{"tool_calls": [{"name": "submit_scope", "args": {"reason": "Clear", "title": "Add Sub", "description": "Add Sub.", "in_scope": ["Sub"], "out_of_scope": [], "recommended_path": "full"}}]}`+"\n")
	_, tty := openPTY(t)
	var first lockedBuffer
	run := autarchCmd(context.Background(), bin, dir, url, "run", "--name", "calc-sub", "Add Sub to calc")
	run.Stdin, run.Stdout, run.Stderr = tty, &first, &first
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- run.Wait() }()
	t.Cleanup(func() { run.Process.Kill() })
	waitUntil(t, 60*time.Second, "the run's scope prompt", func() bool { return strings.Contains(first.String(), "eject") })

	stop := autarchCmd(context.Background(), bin, dir, url, "stop", "calc-sub")
	if out, err := stop.CombinedOutput(); err != nil {
		t.Fatalf("autarch stop: %v\n%s", err, out)
	}
	// Resume at once, as a person would: it waits for the first run to let go.
	url2, srv2 := scripted.Start(t, steps("03", ""))
	var out, errb bytes.Buffer
	resume := autarchCmd(context.Background(), bin, dir, url2, "resume", "--yes", "calc-sub")
	resume.Stdout, resume.Stderr = &out, &errb
	resumeErr := resume.Run()

	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Errorf("the stopped run exited with %v, want exit status 3", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the run still waits at its prompt after autarch stop:\n%s", first.String())
	}
	for _, want := range []string{"autarch: workflow calc-sub was stopped in scoping (stopped by the user); its work so far is kept", "autarch: continue with: autarch resume calc-sub"} {
		if !strings.Contains(first.String(), want) {
			t.Errorf("the stopped run does not say %q:\n%s", want, first.String())
		}
	}
	if resumeErr != nil || !strings.Contains(out.String(), "calc-sub\tdone\tCompleted") {
		t.Errorf("autarch resume: %v\nstdout %q\n%s", resumeErr, out.String(), errb.String())
	}
	if strings.Contains(errb.String(), "running in another autarch process") {
		t.Errorf("resume refused:\n%s", errb.String())
	}
	if errs := srv2.Errors(); len(errs) > 0 {
		t.Errorf("resumed model calls: %q", errs)
	}
}

// A model endpoint that cannot work fails the run at once, says which
// endpoint and what to set, and leaves no workflow behind (issue 31.8).
func TestRunWithAModelThatCannotWork(t *testing.T) {
	unauthorized := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"Incorrect API key provided"}}`, http.StatusUnauthorized)
	}))
	defer unauthorized.Close()
	// Lists its models, but has none by the name asked for.
	noSuchModel := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/models") {
			fmt.Fprint(w, `{"object":"list","data":[{"id":"other","object":"model"}]}`)
			return
		}
		http.Error(w, `{"error":{"message":"model 'm' not found"}}`, http.StatusNotFound)
	}))
	defer noSuchModel.Close()
	refused := scripted.ClosedURL(t)
	for _, tc := range []struct {
		name, url string
		want      []string
	}{
		{"refused", refused, []string{"cannot use the model endpoint " + refused + ": connection refused", "OPENAI_BASE_URL", "no workflow was started"}},
		{"key refused", unauthorized.URL + "/v1", []string{"401 Unauthorized: Incorrect API key provided (" + unauthorized.URL + "/v1)", "OPENAI_API_KEY", "no workflow was started"}},
		{"no such model", noSuchModel.URL + "/v1", []string{"404 Not Found: model 'm' not found", "no model answered, so workflow calc-sub was not kept"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := scriptedRepo(t, "testdata/run-full.txt")
			start := time.Now()
			code, _, errOut := run(t, "run", "--root", dir, "--yes", "--model", "m", "--base-url", tc.url, "--name", "calc-sub", "Add Sub to calc")
			if code != 1 || time.Since(start) > 10*time.Second {
				t.Errorf("exit %d after %s, want 1 at once:\n%s", code, time.Since(start), errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
			if strings.Contains(errOut, "retrying 1/") || strings.Contains(errOut, "autarch resume") {
				t.Errorf("stderr retries or offers a resume:\n%s", errOut)
			}
			if _, out, _ := run(t, "status", "--root", dir, "--json"); strings.Contains(out, "calc-sub") {
				t.Errorf("a workflow was left behind: %s", out)
			}
		})
	}
}

// autarch doctor checks the model endpoint: reachable, key accepted, the
// configured model listed (issue 31.8).
func TestDoctorChecksTheModel(t *testing.T) {
	url, _ := scripted.Start(t, &scripted.Script{})
	refused := scripted.ClosedURL(t)
	for _, tc := range []struct {
		name   string
		args   []string
		want   string
		failed bool
	}{
		{"listed", []string{"--base-url", url, "--model", "scripted"}, "endpoint " + url + ": reachable, key accepted, 1 model listed\nmodel scripted: listed\n", false},
		{"not listed", []string{"--base-url", url, "--model", "gpt-9"}, "model gpt-9: NOT listed by the endpoint: check the name (--model, AUTARCH_MODEL or AUTARCH_MODEL_<ROLE>); it lists scripted\n", true},
		{"refused", []string{"--base-url", refused, "--model", "m"}, "cannot use the model endpoint " + refused + ": connection refused", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(t, append([]string{"doctor", "--root", t.TempDir()}, tc.args...)...)
			if !strings.Contains(out, "== model\n") || !strings.Contains(out, tc.want) {
				t.Errorf("doctor lacks %q:\n%s%s", tc.want, out, errOut)
			}
			if tc.failed && code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
		})
	}
}

// A hook's line reaches the run's log (001-78).
func TestRunLogShowsHooks(t *testing.T) {
	var errb bytes.Buffer
	printEvent(stdio{err: &errb}, workflow.Event{Kind: "hook", Tool: "edit_file", Text: "🔍 Hook python-lint: ⚠️ exit 1", Failed: true})
	printEvent(stdio{err: &errb}, workflow.Event{Kind: "hook", PulseID: "pulse-2", Tool: "edit_file", Text: "🔍 Hook fmt: ✅"})
	if got, want := errb.String(), "    🔍 Hook python-lint: ⚠️ exit 1\n[pulse-2]     🔍 Hook fmt: ✅\n"; got != want {
		t.Errorf("log = %q, want %q", got, want)
	}
}
