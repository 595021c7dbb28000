package job_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/autarch-dev/autarch/app"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/job"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/agent/workflow/store/storetest"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/team"
)

// scenarioConfig is a job scenario's config.json.
type scenarioConfig struct {
	Task string `json:"task"`
	Mode string `json:"mode"`
	// Approvals answer approval requests in order: "approve",
	// "reject:feedback" or "dismiss".
	Approvals []string `json:"approvals"`
	// KillAtRemaining runs the job in a child process and kills it with
	// SIGKILL once the scripted model has this many steps left (the child
	// then waits in its model call), then resumes it here.
	KillAtRemaining int `json:"killAtRemaining"`
	// Budget replaces the mode's budget (tokens, model calls); a run that
	// ends Stopped by it is resumed (which grants another budget).
	Budget *job.Budget `json:"budget"`
	// FirstStop must be in the reason of the first run's stop.
	FirstStop string `json:"firstStop"`
	// Guidance resumes the first stop with the human's guidance.
	Guidance string `json:"guidance"`
}

// scenarioWant is a job scenario's want.json.
type scenarioWant struct {
	Status     string            `json:"status"`
	BranchName string            `json:"branchName"`
	Commits    []string          `json:"commits"`
	Files      map[string]string `json:"files"`
	Approvals  []string          `json:"approvals"`
	// EscalationContext must be in the escalation approval's context.
	EscalationContext string `json:"escalationContext"`
	// Escalations, Analyses and PlanSteps count what the job recorded.
	Escalations int    `json:"escalations"`
	Analyses    int    `json:"analyses"`
	PlanSteps   int    `json:"planSteps"`
	Tests       string `json:"tests"`
	// TestChecks counts the recorded test results (run_tests' and a
	// refused commit's).
	TestChecks int `json:"testChecks"`
	// ToolCalls counts the recorded calls by tool (nothing runs twice).
	ToolCalls map[string]int `json:"toolCalls"`
}

func TestJobScenarios(t *testing.T) {
	testkit.RunScenarios(t, "testdata/scenarios/*.txt", runScenario)
}

// world is a job's world: a real git repository, a store, an engine over
// the scripted model, a scripted editor.
type world struct {
	dir    string
	store  *store.Store
	runner *job.Runner
	ed     *testkit.Editor

	mu     sync.Mutex
	events []editor.JobEvent
}

func newWorld(t testing.TB, dir, modelURL string, approvals []string, budget *job.Budget) *world {
	repo, st := storetest.Open(t, dir)
	w := &world{dir: dir, store: st, ed: &testkit.Editor{T: t, Approvals: approvals}}
	e, err := workflow.New(workflow.Config{Store: st, Repo: repo, Editor: w.ed,
		Model:    openai.New(openai.Config{BaseURL: modelURL, APIKey: "test", MaxRetries: -1}),
		Settings: agent.Settings{Model: "scripted", ContextWindow: 128000}, Mode: tools.ModeYolo,
		Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	must(t, err)
	cfg := app.JobConfig(e)
	cfg.StopPoll, cfg.Events = 20*time.Millisecond, func(ev editor.JobEvent) {
		w.mu.Lock()
		w.events = append(w.events, ev)
		w.mu.Unlock()
	}
	if budget != nil {
		cfg.Budget = func(team.Mode) job.Budget { return *budget }
	}
	w.runner, err = job.New(cfg)
	must(t, err)
	return w
}

func runScenario(t *testing.T, sc *testkit.Scenario) {
	var cfg scenarioConfig
	var want scenarioWant
	sc.Decode(t, &cfg, &want)
	dir := sc.NewRepo(t)
	// A change of the user's own, staged, and an untracked file: the job
	// must leave both alone.
	must(t, os.WriteFile(filepath.Join(dir, "calc.go"), []byte("package calc\n\n// Add adds two numbers (the user's edit).\nfunc Add(a, b int) int { return a - b }\n"), 0o644))
	testkit.Git(t, dir, "add", "calc.go")
	must(t, os.WriteFile(filepath.Join(dir, "scratch.txt"), []byte("mine\n"), 0o644))
	url, model := sc.StartModel(t)
	w := newWorld(t, dir, url, cfg.Approvals, cfg.Budget)
	before := testkit.UserTreeHash(t, dir)
	ctx := context.Background()
	j, err := w.runner.Start(ctx, job.Task{Text: cfg.Task, Mode: cfg.Mode})
	must(t, err)
	if cfg.KillAtRemaining > 0 {
		w.runner.Release(j.ID) // the child process runs it
		killMidway(t, w, dir, url, j.ID, model, cfg.KillAtRemaining)
		j, err = w.runner.Resume(ctx, j.ID)
	} else {
		j, err = w.runner.Run(ctx, j.ID)
	}
	if cfg.FirstStop != "" {
		if j.Status != store.JobStopped || !strings.Contains(j.StatusReason, cfg.FirstStop) || err != nil {
			t.Fatalf("the first run ended %s (%s, %v), want Stopped: %s", j.Status, j.StatusReason, err, cfg.FirstStop)
		}
		j, err = w.runner.ResumeWithGuidance(ctx, j.ID, cfg.Guidance)
	}
	if err != nil {
		t.Errorf("run: %v", err)
	}
	w.check(t, j, want)
	if after := testkit.UserTreeHash(t, dir); after != before {
		t.Errorf("the user's HEAD, index or working tree changed:\nbefore %s\nafter  %s", before, after)
	}
	testkit.CheckModel(t, model)
}

func (w *world) check(t *testing.T, j store.Job, want scenarioWant) {
	ctx := context.Background()
	if string(j.Status) != want.Status {
		t.Errorf("job ended %s (%s), want %s", j.Status, j.StatusReason, want.Status)
	}
	branch := "ai/" + j.ID[:8] + "/" + want.BranchName
	if j.Branch != branch {
		t.Errorf("job branch %q, want %q", j.Branch, branch)
	}
	out := strings.TrimSpace(testkit.Git(t, w.dir, "log", "--reverse", "--format=%s", j.BaseCommit+".."+branch))
	if got := strings.Split(out, "\n"); !slices.Equal(got, want.Commits) {
		t.Errorf("commits on %s = %q, want %q", branch, got, want.Commits)
	}
	for file, sub := range want.Files {
		if out := testkit.Git(t, w.dir, "show", branch+":"+file); !strings.Contains(out, sub) {
			t.Errorf("%s on %s does not contain %q:\n%s", file, branch, sub, out)
		}
	}
	if !slices.Equal(w.ed.Kinds(), nonNil(want.Approvals)) {
		t.Errorf("approvals asked = %q, want %q", w.ed.Kinds(), want.Approvals)
	}
	if want.EscalationContext != "" {
		for _, a := range w.ed.Asked() {
			if a.Kind == editor.ApprovalEscalation && (a.JobID != j.ID || a.EscalationID == "" || a.Severity == "" || !strings.Contains(a.Context, want.EscalationContext) || a.Reason == "") {
				t.Errorf("the escalation approval lacks its job, id, severity, reason or context: %+v", a)
			}
		}
	}
	s, err := w.runner.Summary(ctx, j.ID)
	must(t, err)
	if len(s.Commits) != len(want.Commits) || len(s.Escalations) != want.Escalations || s.Analyses != want.Analyses || s.PlanSteps != want.PlanSteps {
		t.Errorf("summary: %d commits, %d escalations, %d analyses, %d plan steps; want %d, %d, %d, %d",
			len(s.Commits), len(s.Escalations), s.Analyses, s.PlanSteps, len(want.Commits), want.Escalations, want.Analyses, want.PlanSteps)
	}
	if want.Tests != "" && (s.Tests == nil || s.Tests.Status != want.Tests) {
		t.Errorf("latest tests %+v, want %s", s.Tests, want.Tests)
	}
	if want.TestChecks > 0 {
		checks, err := w.store.JobChecks(ctx, j.ID)
		must(t, err)
		var tests []string
		for _, c := range checks {
			if c.Kind == "test" {
				tests = append(tests, c.Status)
			}
		}
		if len(tests) != want.TestChecks {
			t.Errorf("test results recorded: %q, want %d", tests, want.TestChecks)
		}
	}
	if s.Tokens == 0 || s.Iterations == 0 {
		t.Errorf("summary counts no usage: %d tokens over %d model calls", s.Tokens, s.Iterations)
	}
	if want.ToolCalls != nil {
		calls, err := w.store.JobToolCalls(ctx, j.ID)
		must(t, err)
		got := map[string]int{}
		for _, c := range calls {
			got[c.Name]++
		}
		for name, n := range want.ToolCalls {
			if got[name] != n {
				t.Errorf("%s ran %d times, want %d (all calls: %v)", name, got[name], n, got)
			}
		}
	}
	// The worktree is the job's own, outside the user's working tree
	// (in the repository's state, beside the workflows' worktrees).
	if rel, err := filepath.Rel(w.dir, j.WorktreePath); err != nil || !strings.HasPrefix(rel, ".git"+string(filepath.Separator)) {
		t.Errorf("the job's worktree %s is not in the repository's state directory", j.WorktreePath)
	}
	if _, err := os.Stat(j.WorktreePath); j.Status == store.JobDone && !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the done job's worktree %s was not removed (%v)", j.WorktreePath, err)
	}
}

// killMidway runs the job in a child process (this test binary, re-run as
// TestJobChild) and kills it with SIGKILL once the scripted model has
// remaining steps left; the job is then listed as Stopped (interrupted).
func killMidway(t *testing.T, w *world, dir, url, id string, model *scripted.Server, remaining int) {
	ctx := context.Background()
	cmd := exec.Command(os.Args[0], "-test.run=^TestJobChild$", "-test.v")
	cmd.Env = append(os.Environ(), "AUTARCH_JOB_CHILD_DIR="+dir, "AUTARCH_JOB_CHILD_URL="+url, "AUTARCH_JOB_CHILD_ID="+id)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	must(t, cmd.Start())
	// The step is taken as its request arrives: the child is then in its
	// model call.
	testkit.CheckForChild(t, cmd, &out, 2*time.Minute, 20*time.Millisecond, func() error {
		if n := model.Remaining(); n > remaining {
			return fmt.Errorf("the child did not reach the kill point: %d steps left", n)
		}
		return nil
	})
	must(t, cmd.Process.Signal(syscall.SIGKILL))
	err := cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed by SIGKILL (%v):\n%s", err, out.String())
	}
	list, err := w.runner.Summaries(ctx)
	must(t, err)
	if len(list) != 1 || list[0].Status != string(store.JobStopped) || list[0].StatusReason != job.InterruptedReason {
		t.Fatalf("after the kill the job is listed as %+v, want Stopped: %s", list, job.InterruptedReason)
	}
}

// TestJobChild is the child process of killMidway: it runs the job named
// by the environment until it is killed.
func TestJobChild(t *testing.T) {
	dir := os.Getenv("AUTARCH_JOB_CHILD_DIR")
	if dir == "" {
		t.Skip("the child process of a kill scenario")
	}
	w := newWorld(t, dir, os.Getenv("AUTARCH_JOB_CHILD_URL"), nil, nil)
	j, err := w.runner.Run(context.Background(), os.Getenv("AUTARCH_JOB_CHILD_ID"))
	t.Fatalf("the child's job ended (%s, %v) before it was killed", j.Status, err)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
