package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/editor"
)

// TestJobResumeTakesGuidance: the words after --resume ID are the job's
// guidance (issue 31.6: a usage error); the job is looked up, not refused.
func TestJobResumeTakesGuidance(t *testing.T) {
	dir := t.TempDir()
	gitCmd(t, dir, "init", "-q", "-b", "main")
	code, _, errOut := run(t, "job", "--root", dir, "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--resume", "nosuchjob", "use", "Sub's name")
	if code == 2 || strings.Contains(errOut, "usage:") || !strings.Contains(errOut, "nosuchjob") {
		t.Errorf("autarch job --resume ID GUIDANCE: exit %d, stderr %q; want the job looked up (no usage error)", code, errOut)
	}
}

func TestJobFromTheCommandLine(t *testing.T) {
	bin := buildBinary(t)
	dir, url, model := scriptedProject(t, "testdata/job.txt", "", "")
	ctx := context.Background()
	head := gitCmd(t, dir, "rev-parse", "HEAD")
	out, err := autarchCmd(ctx, bin, dir, url, "job", "--yes", "Fix Add: it subtracts").CombinedOutput()
	if err != nil {
		t.Fatalf("autarch job: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "apply it with: autarch job --apply") {
		t.Errorf("the job's end does not say how to apply it:\n%s", out)
	}
	if got := gitCmd(t, dir, "rev-parse", "HEAD"); got != head {
		t.Errorf("the user's HEAD moved while the job ran: %s → %s", head, got)
	}
	if n := model.Remaining(); n != 0 {
		t.Errorf("%d scripted steps unused", n)
	}
	status, err := autarchCmd(ctx, bin, dir, url, "status", "--jobs", "--json").Output()
	if err != nil {
		t.Fatalf("autarch status --jobs --json: %v", err)
	}
	var jobs []editor.JobSummary
	if err := json.Unmarshal(status, &jobs); err != nil || len(jobs) != 1 {
		t.Fatalf("status --jobs --json = %s (%v), want one job", status, err)
	}
	j := jobs[0]
	if j.Status != "Done" || !strings.HasPrefix(j.Branch, "ai/"+j.ID[:8]+"/fix-add") || len(j.Commits) != 1 || len(j.Escalations) != 1 || !j.Escalations[0].Approved {
		t.Errorf("status lists the job as %+v", j)
	}
	table, err := autarchCmd(ctx, bin, dir, url, "status").Output()
	if err != nil || !strings.Contains(string(table), j.Branch) || !strings.Contains(string(table), "fix(calc): make Add add") {
		t.Errorf("autarch status (%v) does not list the job's branch and commit:\n%s", err, table)
	}
	if stopped, err := autarchCmd(ctx, bin, dir, url, "stop", j.ID).CombinedOutput(); err == nil || !strings.Contains(string(stopped), "is done: nothing to stop") {
		t.Errorf("autarch stop of a done job = %v\n%s\nwant a refusal saying the job is done", err, stopped)
	}
	applied, err := autarchCmd(ctx, bin, dir, url, "job", "--apply", j.ID).CombinedOutput()
	if err != nil || !strings.Contains(string(applied), "fast-forwarded") {
		t.Fatalf("autarch job --apply: %v\n%s", err, applied)
	}
	if got := gitCmd(t, dir, "rev-parse", "HEAD"); got != j.Commits[0].Hash+"\n" {
		t.Errorf("after --apply HEAD is %s, want the job's commit %s", got, j.Commits[0].Hash)
	}
}
