package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/swarm/orchestrate"
)

// TestFailedRunSaysHowToContinue checks the end of a failed workflow, job
// and swarm on the terminal: the error, then how to continue the run once
// its cause is fixed, and exit code 1.
func TestFailedRunSaysHowToContinue(t *testing.T) {
	boom := errors.New("model call: boom")
	for _, tc := range []struct {
		name   string
		result func(io stdio) int
		want   []string
	}{
		{name: "workflow", result: func(io stdio) int {
			return runResult(io, store.Workflow{ID: "w1", Name: "login", Stage: "pulsing", Status: store.WorkflowFailed}, boom)
		}, want: []string{"autarch: model call: boom\n", "autarch: the workflow is recorded as failed; once the cause is fixed, continue from its last completed step with: autarch resume login\n"}},
		{name: "job", result: func(io stdio) int {
			return jobResult(io, store.Job{ID: "j1", Name: "fix", Status: store.JobFailed}, boom)
		}, want: []string{"autarch: model call: boom\n", "autarch: the job is recorded as Failed; once the cause is fixed, continue from its last message with: autarch job --resume j1\n"}},
		{name: "swarm", result: func(io stdio) int {
			return swarmResult(io, t.TempDir(), &orchestrate.State{ID: "s1", Status: orchestrate.StatusFailed, Rounds: 3}, boom)
		}, want: []string{"autarch swarm: model call: boom\n", "autarch: the swarm is recorded as failed; once the cause is fixed, continue with: autarch swarm --resume s1\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := tc.result(stdio{in: strings.NewReader(""), out: &out, err: &errb}); code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if got, want := errb.String(), strings.Join(tc.want, ""); got != want {
				t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}
