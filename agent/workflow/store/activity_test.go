package store

import (
	"context"
	"encoding/json"
	"github.com/autarch-dev/autarch/agent/run"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// openTicking opens a store whose clock moves a second at every reading.
func openTicking(t *testing.T) *Store {
	t.Helper()
	at := fixed
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), FileName), Options{Now: func() time.Time {
		at = at.Add(time.Second)
		return at
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestRecentToolCalls(t *testing.T) {
	s := openTicking(t)
	ctx := context.Background()
	w := newWorkflow(t, s, "activity")
	other := newWorkflow(t, s, "other")
	for _, c := range []ToolCall{
		{WorkflowID: w.ID, Stage: "research", CallID: "c1", Name: "grep", Args: json.RawMessage(`{"pattern":"Add"}`)},
		{WorkflowID: w.ID, Stage: "research", CallID: "c2", Name: "dispatch_subagent"},
		{WorkflowID: w.ID, Stage: "research", CallID: "s1", ParentCallID: "c2", Subagent: "explore", Name: "read_file"},
		{WorkflowID: other.ID, Stage: "research", CallID: "x", Name: "shell"},
		{WorkflowID: w.ID, Stage: "pulsing", PulseID: "pulse-a", CallID: "c3", Name: "shell", Args: json.RawMessage(`{"command":"go test ./..."}`)},
		{WorkflowID: w.ID, Stage: "pulsing", PulseID: "pulse-b", CallID: "c4", Name: "grep"},
	} {
		if err := s.AddToolCall(ctx, &c); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		n    int
		want []string // call ids, oldest first
	}{
		{0, nil},
		{-3, nil},
		{2, []string{"c3", "c4"}},
		{3, []string{"s1", "c3", "c4"}},
		{100, []string{"c1", "c2", "s1", "c3", "c4"}},
	}
	for _, tc := range tests {
		calls, err := s.RecentToolCalls(ctx, w.ID, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range calls {
			got = append(got, c.CallID)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("RecentToolCalls(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
	calls, _ := s.RecentToolCalls(ctx, w.ID, 3)
	if c := calls[0]; c.ParentCallID != "c2" || c.Subagent != "explore" || c.Name != "read_file" {
		t.Errorf("the sub-agent's call reads back as %+v", c)
	}
	if c := calls[1]; string(c.Args) != `{"command":"go test ./..."}` || c.PulseID != "pulse-a" || !c.EndedAt.IsZero() {
		t.Errorf("the running shell call reads back as %+v", c)
	}
	counts, err := s.ToolCallCounts(ctx, w.ID)
	if want := map[string]int{"grep": 2, "dispatch_subagent": 1, "read_file": 1, "shell": 1}; err != nil || !reflect.DeepEqual(counts, want) {
		t.Errorf("ToolCallCounts = %v, %v; want %v", counts, err, want)
	}
	if counts, err := s.ToolCallCounts(ctx, "missing"); err != nil || len(counts) != 0 {
		t.Errorf("ToolCallCounts of a missing workflow = %v, %v", counts, err)
	}
}

func TestRecentJobToolCalls(t *testing.T) {
	s := openTicking(t)
	ctx := context.Background()
	j := Job{Task: "Fix Add", Mode: "mechanic", BaseRef: "main", BaseCommit: "abc"}
	if err := s.CreateJob(ctx, &j); err != nil {
		t.Fatal(err)
	}
	assistant := func(data string) {
		t.Helper()
		if err := s.AddJobMessage(ctx, &JobMessage{JobID: j.ID, Role: "assistant", Data: json.RawMessage(data)}); err != nil {
			t.Fatal(err)
		}
	}
	start := func(id, name string) {
		t.Helper()
		if err := s.StartJobToolCall(ctx, &JobToolCall{JobID: j.ID, CallID: id, Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	assistant(`{"tool_calls":[{"id":"call_1","name":"read_file","args":{"path":"a.go"}},{"id":"call_2","name":"run_tests","args":{}}]}`)
	start("call_1", "read_file")
	if err := s.FinishJobToolCall(ctx, j.ID, "call_1", "package a", run.OutcomeOK); err != nil {
		t.Fatal(err)
	}
	start("call_2", "run_tests")
	if err := s.FinishJobToolCall(ctx, j.ID, "call_2", "1 failed", run.OutcomeFailed); err != nil {
		t.Fatal(err)
	}
	start("", "get_repo_state") // the model gave no id: no arguments are guessed
	// A resumed run: the model reuses an id; the call's arguments are the
	// latest message's before it started, not a later one's.
	assistant(`{"tool_calls":[{"id":"call_1","name":"shell","args":{"command":"go vet ./..."}}]}`)
	start("call_1", "shell")
	assistant(`{"tool_calls":[{"id":"call_1","name":"shell","args":{"command":"rm -rf /"}}]}`)

	calls, err := s.RecentJobToolCalls(ctx, j.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		id, name, args string
		failed, ended  bool
	}
	var got []row
	for _, c := range calls {
		got = append(got, row{c.CallID, c.Name, string(c.Args), c.Failed, !c.EndedAt.IsZero()})
	}
	want := []row{
		{"call_1", "read_file", `{"path":"a.go"}`, false, true},
		{"call_2", "run_tests", `{}`, true, true},
		{"", "get_repo_state", "", false, false},
		{"call_1", "shell", `{"command":"go vet ./..."}`, false, false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RecentJobToolCalls =\n%+v\nwant\n%+v", got, want)
	}
	if last, _ := s.RecentJobToolCalls(ctx, j.ID, 1); len(last) != 1 || last[0].Name != "shell" {
		t.Errorf("RecentJobToolCalls(1) = %+v", last)
	}
	if none, err := s.RecentJobToolCalls(ctx, j.ID, 0); err != nil || none != nil {
		t.Errorf("RecentJobToolCalls(0) = %+v, %v", none, err)
	}
	counts, err := s.JobToolCallCounts(ctx, j.ID)
	if want := map[string]int{"read_file": 1, "run_tests": 1, "get_repo_state": 1, "shell": 1}; err != nil || !reflect.DeepEqual(counts, want) {
		t.Errorf("JobToolCallCounts = %v, %v; want %v", counts, err, want)
	}
}
