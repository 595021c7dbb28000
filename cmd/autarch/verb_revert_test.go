package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/scripted"
)

// TestRevertAndRedoFromTheCommandLine: a 3-pulse workflow; revert pulse 2
// (pulse 3 depends on it) asks first, then makes two revert commits, the
// branch tree is the tree after pulse 1, status --json shows pulses 2–3
// pending; redo 2 with guidance completes the workflow again with new
// checkpoint commits; the user's branch, HEAD, index and tree never change.
func TestRevertAndRedoFromTheCommandLine(t *testing.T) {
	bin := buildBinary(t)
	dir, steps := scriptedRepo(t, "testdata/undo.txt")
	url, _ := scripted.Start(t, steps("", "20"))
	head := gitCmd(t, dir, "rev-parse", "HEAD")
	autarch := func(stdin string, args ...string) (string, string, error) {
		var out, errb bytes.Buffer
		cmd := autarchCmd(context.Background(), bin, dir, url, args...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
	if out, errOut, err := autarch("", "run", "--yes", "--name", "abc", "Add constants A, B and C"); err != nil || !strings.Contains(out, "abc\tdone\tCompleted") {
		t.Fatalf("autarch run: %v\n%s\n%s", err, out, errOut)
	}
	pulse1 := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "autarch/abc~2"))
	before := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "autarch/abc"))

	// Without --yes it shows what it would undo and asks.
	_, errOut, err := autarch("n\n", "revert", "abc", "pulse-2")
	if err == nil || !strings.Contains(errOut, "Reverting pulse-2 of abc undoes, on autarch/abc:") || !strings.Contains(errOut, "feat(calc): add C (c.go)") ||
		!strings.Contains(errOut, "Files: b.go, c.go") || !strings.Contains(errOut, "nothing was reverted") {
		t.Fatalf("revert answered no: %v\n%s", err, errOut)
	}
	if got := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "autarch/abc")); got != before {
		t.Fatalf("a revert answered no moved the branch")
	}
	out, errOut, err := autarch("", "revert", "--yes", "abc", "2")
	if err != nil || !strings.Contains(out, "pulse-2, pulse-3 reverted (2 revert commits): run them again with autarch redo abc pulse-2") {
		t.Fatalf("autarch revert --yes: %v\n%s\n%s", err, out, errOut)
	}
	if got := gitCmd(t, dir, "log", "--format=%s", before+"..autarch/abc"); got != "Revert \"feat(calc): add B\"\nRevert \"feat(calc): add C\"\n" {
		t.Errorf("revert commits = %q", got)
	}
	if a, b := gitCmd(t, dir, "rev-parse", "autarch/abc^{tree}"), gitCmd(t, dir, "rev-parse", pulse1+"^{tree}"); a != b {
		t.Errorf("the branch tree is not the tree after pulse 1")
	}
	out, _, err = autarch("", "status", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Name         string
		Stage        string
		Status       string
		PulseRecords []struct {
			ID       string `json:"id"`
			Status   string `json:"status"`
			Reverted bool   `json:"reverted"`
		} `json:"pulseRecords"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	got := rows[0]
	if got.Stage != "pulsing" || got.Status != "Stopped" || len(got.PulseRecords) != 3 {
		t.Fatalf("status = %+v", got)
	}
	for i, want := range []struct {
		status   string
		reverted bool
	}{{"Succeeded", false}, {"Proposed", true}, {"Proposed", true}} {
		if p := got.PulseRecords[i]; p.Status != want.status || p.Reverted != want.reverted {
			t.Errorf("status --json pulse %s: %s reverted=%v, want %s reverted=%v", p.ID, p.Status, p.Reverted, want.status, want.reverted)
		}
	}
	if _, errOut, err := autarch("", "revert", "--yes", "abc", "pulse-7"); err == nil || !strings.Contains(errOut, `has no pulse "pulse-7"`) {
		t.Errorf("revert of an unknown pulse: %v\n%s", err, errOut)
	}

	url2, _ := scripted.Start(t, steps("20", ""))
	url = url2
	out, errOut, err = autarch("", "redo", "--yes", "abc", "pulse-2", "use a table test")
	if err != nil || !strings.Contains(out, "abc\tdone\tCompleted") {
		t.Fatalf("autarch redo: %v\n%s\n%s", err, out, errOut)
	}
	if got := gitCmd(t, dir, "log", "--format=%s", "-2", "autarch/abc"); got != "feat(calc): add C\nfeat(calc): add B again\n" {
		t.Errorf("new checkpoint commits = %q", got)
	}
	if gitCmd(t, dir, "rev-parse", "HEAD") != head || gitCmd(t, dir, "status", "--porcelain") != "" || gitCmd(t, dir, "rev-parse", "main") != head {
		t.Errorf("the user's checkout changed")
	}
}
