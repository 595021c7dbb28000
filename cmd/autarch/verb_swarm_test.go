package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/swarm/orchestrate"
	"github.com/autarch-dev/autarch/tools/verify"
)

func TestSwarmFromTheCommandLine(t *testing.T) {
	bin := buildBinary(t)
	dir, url, model := scriptedProject(t, "testdata/swarm.txt", "", "")
	ctx := context.Background()
	head := gitCmd(t, dir, "rev-parse", "HEAD")
	var stdout, stderr bytes.Buffer
	cmd := autarchCmd(ctx, bin, dir, url, "swarm", "--agents", "explorer", "--rounds", "1", "--allow-write", "write a readme")
	cmd.Stdin = strings.NewReader("what\na looks right\n")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("autarch swarm: %v\n%s", err, stderr.String())
	}
	fields := strings.Split(strings.TrimSpace(stdout.String()), "\t")
	if len(fields) != 4 || fields[1] != "done" || fields[3] != "autarch/swarm-"+fields[0] {
		t.Fatalf("stdout = %q, want ID, done, round, branch", stdout.String())
	}
	for _, want := range []string{"explorer proposes to write README.md", "+# demo", `"what" is not an answer`, "approve README.md (explorer): looks right", "is done: 1 commit(s) on autarch/swarm-"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if got := gitCmd(t, dir, "rev-parse", "HEAD"); got != head {
		t.Errorf("the user's HEAD moved: %s → %s", head, got)
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err == nil {
		t.Error("README.md was written in the user's folder")
	}
	if got := gitCmd(t, dir, "show", "autarch/swarm-"+fields[0]+":README.md"); got != "# demo\n" {
		t.Errorf("README.md on the swarm's branch = %q", got)
	}
	if n := model.Remaining(); n != 0 {
		t.Errorf("%d scripted steps unused", n)
	}
	row := regexp.MustCompile(regexp.QuoteMeta(fields[0]+" done 1/1 done human 1/1 decided 1 ") + `\d+` + regexp.QuoteMeta(" autarch/swarm-"+fields[0]+" write a readme"))
	listed, err := autarchCmd(ctx, bin, dir, url, "swarm", "--list").Output()
	if err != nil || !row.MatchString(strings.Join(strings.Fields(string(listed)), " ")) {
		t.Errorf("autarch swarm --list: %v\n%s", err, listed)
	}
	if status, err := autarchCmd(ctx, bin, dir, url, "status").Output(); err != nil || !row.MatchString(strings.Join(strings.Fields(string(status)), " ")) {
		t.Errorf("autarch status does not list the swarm: %v\n%s", err, status)
	}
	// A done swarm resumed is done at once; an unknown one is refused.
	again, err := autarchCmd(ctx, bin, dir, url, "swarm", "--resume", fields[0]).CombinedOutput()
	if err != nil || !strings.Contains(string(again), "is done") {
		t.Errorf("resume of a done swarm: %v\n%s", err, again)
	}
	unknown, err := autarchCmd(ctx, bin, dir, url, "swarm", "--resume", "../../etc").CombinedOutput()
	if err == nil || !strings.Contains(string(unknown), "an id is 12 hex digits") {
		t.Errorf("resume of a bad id: %v\n%s", err, unknown)
	}
}

func TestSwarmResultFailingGates(t *testing.T) {
	gates := &verify.GateRun{Reports: []verify.Report{
		{Kind: verify.Build, Check: "go build", Dir: ".", Status: verify.StatusFail},
		{Kind: verify.Test, Check: "go test", Dir: ".", Status: verify.StatusPass},
	}}
	for _, tc := range []struct {
		name  string
		gates *verify.GateRun
		code  int
		want  []string
	}{
		{"failing", gates, 1, []string{"do not merge autarch/swarm-0123456789ab", "after round 2 it fails its quality gates: build (go build in .: fail)",
			"fix it on the branch in /wt", "autarch swarm --base autarch/swarm-0123456789ab --allow-write TASK"}},
		{"passing", &verify.GateRun{Reports: gates.Reports[1:]}, 0, []string{"git merge autarch/swarm-0123456789ab"}},
		{"none ran", nil, 0, []string{"git merge autarch/swarm-0123456789ab"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &orchestrate.State{ID: "0123456789ab", Status: orchestrate.StatusDone, Round: 2, Rounds: 2, Branch: "autarch/swarm-0123456789ab",
				Worktree: "/wt", Commits: []string{"abc"}, Gates: tc.gates, GatesRound: 2}
			var out, errOut bytes.Buffer
			code := swarmResult(stdio{out: &out, err: &errOut}, t.TempDir(), st, nil)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.code, errOut.String())
			}
			for _, want := range tc.want {
				if !strings.Contains(errOut.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
				}
			}
			if tc.code != 0 && strings.Contains(errOut.String(), "git merge") {
				t.Errorf("a failing branch is offered for merging:\n%s", errOut.String())
			}
		})
	}
	var errOut bytes.Buffer
	printSwarmEvent(stdio{err: &errOut}, editor.SwarmEvent{Kind: "gates", Failed: true, Text: "the round's writes fail the quality gates: build go build: fail"})
	if !strings.Contains(errOut.String(), "✗ the round's writes fail the quality gates") {
		t.Errorf("gates event printed as %q", errOut.String())
	}
	errOut.Reset()
	printSwarmEvent(stdio{err: &errOut}, editor.SwarmEvent{Kind: "hook", Agent: "explorer", Tool: "fs_read", Text: "🔍 Hook no-private: ⛔ blocked fs_read"})
	if got := errOut.String(); got != "    🔍 Hook no-private: ⛔ blocked fs_read (explorer)\n" {
		t.Errorf("hook event printed as %q, want the spec's line", got)
	}
}
