package app

import (
	"context"
	"errors"
	"github.com/autarch-dev/autarch/agent"
	"io"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/codesearch"
	"github.com/autarch-dev/autarch/editor"
)

// TestActivity: the one activity view shows every kind's tool calls, and
// a swarm's decisions, commits and applied writes, in each kind's words.
func TestActivity(t *testing.T) {
	tests := []struct {
		name string
		ev   Event
		want string // "" for none
	}{
		{"workflow call", workflowEvent(editor.WorkflowEvent{Kind: editor.EventToolCall, WorkflowID: "wf-1", Stage: "research", Tool: "grep", Reason: "find it"}),
			"[research] grep: find it"},
		{"workflow message", workflowEvent(editor.WorkflowEvent{Kind: editor.EventMessage, WorkflowID: "wf-1", Text: "hi"}), ""},
		{"job call", jobEvent(editor.JobEvent{Kind: "tool_call", JobID: "0123456789abcdef", Tool: "run_tests", Reason: "check"}),
			"[job 01234567] run_tests: check"},
		{"job result", jobEvent(editor.JobEvent{Kind: "tool_result", JobID: "0123456789abcdef", Tool: "run_tests"}), ""},
		{"swarm unapplied write", swarmEvent(editor.SwarmEvent{SwarmID: "s1", Kind: "applied", Path: "a.md", Failed: true,
			Text: "approved but not applied: the swarm runs without --allow-write"}),
			"[swarm s1] applied  a.md approved but not applied: the swarm runs without --allow-write"},
		{"swarm status", swarmEvent(editor.SwarmEvent{SwarmID: "s1", Kind: "status", Status: "running"}), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Activity(tt.ev)
			if ok != (tt.want != "") || got != tt.want {
				t.Errorf("Activity = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}

// TestEventEnvelope: each kind's event arrives in the kernel's typed
// envelope — its run, kind, call and outcome (a refused write refused, a
// failed call failed) and usage — with the kind's own event as it was.
func TestEventEnvelope(t *testing.T) {
	tests := []struct {
		name    string
		ev      Event
		run     kernel.Ref
		outcome kernel.Outcome
	}{
		{"workflow result", workflowEvent(editor.WorkflowEvent{Kind: editor.EventToolResult, WorkflowID: "wf-1", Tool: "shell", ToolCallID: "c1",
			ParentToolCallID: "c0", Subagent: "explore"}), kernel.Ref{Kind: kernel.KindWorkflow, ID: "wf-1"}, kernel.OutcomeOK},
		{"job failure", jobEvent(editor.JobEvent{Kind: "tool_result", JobID: "j1", Tool: "run_tests", Failed: true, ToolCallID: "c1"}),
			kernel.Ref{Kind: kernel.KindJob, ID: "j1"}, kernel.OutcomeFailed},
		{"swarm refusal", swarmEvent(editor.SwarmEvent{Kind: "applied", SwarmID: "s1", Path: ".env", Failed: true, Refused: true}),
			kernel.Ref{Kind: kernel.KindSwarm, ID: "s1"}, kernel.OutcomeRefused},
		{"swarm unapplied", swarmEvent(editor.SwarmEvent{Kind: "applied", SwarmID: "s1", Path: "a.md", Failed: true}),
			kernel.Ref{Kind: kernel.KindSwarm, ID: "s1"}, kernel.OutcomeFailed},
		{"swarm status", swarmEvent(editor.SwarmEvent{Kind: "status", SwarmID: "s1", Status: "running"}),
			kernel.Ref{Kind: kernel.KindSwarm, ID: "s1"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.ev.Run != tt.run || tt.ev.Outcome != tt.outcome {
				t.Errorf("run %+v outcome %q; want %+v %q", tt.ev.Run, tt.ev.Outcome, tt.run, tt.outcome)
			}
			set := 0
			for _, p := range []bool{tt.ev.Workflow != nil, tt.ev.Job != nil, tt.ev.Swarm != nil} {
				if p {
					set++
				}
			}
			if set != 1 {
				t.Errorf("%d kinds' events set, want 1", set)
			}
		})
	}
	ev := workflowEvent(editor.WorkflowEvent{Kind: editor.EventUsage, WorkflowID: "wf-1", Usage: &editor.UsageView{PromptTokens: 10, CompletionTokens: 2, Cost: 0.5}})
	if ev.Usage == nil || *ev.Usage != (kernel.Usage{PromptTokens: 10, CompletionTokens: 2, Cost: 0.5}) {
		t.Errorf("usage = %+v", ev.Usage)
	}
}

// TestRunsListsEveryKind: one list of the project's runs, each with its
// kind, most recently updated first, over a real repository and store;
// and the events of a job reach the session's one stream.
func TestRunsListsEveryKind(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	var mu sync.Mutex
	var events []Event
	ui := &editor.Terminal{Out: io.Discard}
	s := New(Config{Editor: ui, Events: func(ev Event) { mu.Lock(); events = append(events, ev); mu.Unlock() },
		Search: func(folder string) workflow.CodeSearch {
			return codesearch.New(codesearch.Config{Root: folder, Editor: ui})
		},
		Wire: func(ctx context.Context, p *workflow.Project, cfg *workflow.Config) error {
			cfg.Model = noModel{}
			return nil
		}})
	s.SetFolders([]string{dir})
	defer s.Close(time.Second)
	ctx := context.Background()
	e, err := s.Engine(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st := e.Store()
	wf := store.Workflow{ID: "wf-one", Name: "one", Task: "the workflow", Stage: "scoping", Status: store.WorkflowActive}
	if err := st.CreateWorkflow(ctx, &wf); err != nil {
		t.Fatal(err)
	}
	j := store.Job{ID: "job-two", Name: "two", Task: "the job", Mode: "mechanic", BaseRef: "main", BaseCommit: "abc"}
	if err := st.CreateJob(ctx, &j); err != nil {
		t.Fatal(err)
	}
	if err := s.StopJob(ctx, editor.JobRef{JobID: j.ID}); err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.Kind+" "+r.ID+" "+r.Task)
	}
	slices.Sort(got)
	if want := []string{"job job-two the job", "workflow wf-one the workflow"}; !slices.Equal(got, want) {
		t.Errorf("runs = %q, want %q", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.ContainsFunc(events, func(ev Event) bool {
		return ev.Run == kernel.Ref{Kind: kernel.KindJob, ID: j.ID} && ev.Kind == kernel.EventStatus && ev.Job != nil
	}) {
		t.Errorf("the stopped job's status event did not reach the stream: %+v", events)
	}
}

// noModel is a model that is never asked: this test runs no agent.
type noModel struct{}

func (noModel) Complete(context.Context, agent.Request, func(string)) (agent.Response, error) {
	return agent.Response{}, errors.New("no model in this test")
}
