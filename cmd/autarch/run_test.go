package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// scriptedRepo makes a git repository from a txtar's repo/ files and
// returns it with the archive's model steps (all of them, or those whose
// names sort from "from" on).
func scriptedRepo(t *testing.T, path string) (dir string, steps func(from, to string) *scripted.Script) {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	for _, f := range ar.Files {
		if rel, ok := strings.CutPrefix(f.Name, "repo/"); ok {
			p := filepath.Join(dir, rel)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	testkit.Commit(t, dir)
	return dir, func(from, to string) *scripted.Script {
		var files []txtar.File
		for _, f := range ar.Files {
			if !strings.HasPrefix(f.Name, "repo/") && f.Name >= from && (to == "" || f.Name < to) {
				files = append(files, f)
			}
		}
		s, err := scripted.Parse(txtar.Format(&txtar.Archive{Files: files}))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// autarchCmd runs the built binary in dir against a scripted model.
func autarchCmd(ctx context.Context, bin, dir, url string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+url, "OPENAI_API_KEY=test", "AUTARCH_MODEL=scripted")
	return cmd
}

func TestRunFullPathFromTheCommandLine(t *testing.T) {
	bin := buildBinary(t)
	dir, url, _ := scriptedProject(t, "testdata/run-full.txt", "", "")
	head := gitCmd(t, dir, "rev-parse", "HEAD")
	var stdout, stderr bytes.Buffer
	cmd := autarchCmd(context.Background(), bin, dir, url, "run", "--yes", "--name", "calc-sub", "Add Sub to calc")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("autarch run: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "calc-sub\tdone\tCompleted") {
		t.Errorf("stdout = %q", stdout.String())
	}
	for _, want := range []string{"auto-answered (--yes): Sub", "? Approve the plan (1 pulse)\n  auto-answered (--yes): approved", "▶ research", "• edit_file: Add Sub", "■ plan card submitted for approval: Approve the plan (1 pulse)",
		"■ plan approved", "◆ pulse pulse-1 started: Add Sub", "◆ pulse pulse-1 succeeded: feat(calc): add Sub (", "■ review recommends approve: Sub is correct."} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the run's log lacks %q:\n%s", want, stderr.String())
		}
	}
	for _, internal := range []string{"PlanCardResolved", "PulseCompleted", "Succeeded", "1 pulses"} {
		if strings.Contains(stderr.String(), internal) {
			t.Errorf("the run's log shows %q:\n%s", internal, stderr.String())
		}
	}
	if got := gitCmd(t, dir, "log", "--format=%s", "main..autarch/calc-sub"); got != "feat(calc): add Sub\n" {
		t.Errorf("workflow branch commits = %q", got)
	}
	if got := gitCmd(t, dir, "rev-parse", "HEAD"); got != head || gitCmd(t, dir, "status", "--porcelain") != "" {
		t.Errorf("the user's checkout changed")
	}
	status := autarchCmd(context.Background(), bin, dir, url, "status", "--json")
	out, err := status.Output()
	if err != nil {
		t.Fatalf("autarch status: %v", err)
	}
	var rows []editor.WorkflowSummary
	if err := json.Unmarshal(out, &rows); err != nil || len(rows) != 1 || rows[0].Stage != "done" || rows[0].PulsesDone != 1 || rows[0].Pulses != 1 {
		t.Errorf("status = %s (%v)", out, err)
	}
	if !strings.Contains(string(out), `"gateSummary": "quality gates in `) || !strings.Contains(string(out), `"check": "go test"`) {
		t.Errorf("status --json lacks the pulse's quality-gate run:\n%s", out)
	}
}

func TestRunKilledMidPulseThenResumed(t *testing.T) {
	bin := buildBinary(t)
	dir, steps := scriptedRepo(t, "testdata/run-kill.txt")
	url, model := scripted.Start(t, steps("", "05"))
	var stderr bytes.Buffer
	cmd := autarchCmd(context.Background(), bin, dir, url, "run", "--yes", "--name", "half", "Add Half")
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	written := filepath.Join(dir, ".git", "autarch", "worktrees", "half", "half.go")
	// The slow step is the script's last, taken as its request arrives:
	// the process is then in the slow model call.
	testkit.CheckForChild(t, cmd, &stderr, 60*time.Second, 20*time.Millisecond, func() error {
		if _, err := os.Stat(written); err != nil {
			return fmt.Errorf("the pulse never wrote half.go: %w", err)
		}
		if n := model.Remaining(); n > 0 {
			return fmt.Errorf("the slow model call has not begun (%d steps left)", n)
		}
		return nil
	})
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	url2, _ := scripted.Start(t, steps("05", ""))
	var out, errb bytes.Buffer
	resume := autarchCmd(context.Background(), bin, dir, url2, "resume", "--yes", "half")
	resume.Stdout, resume.Stderr = &out, &errb
	if err := resume.Run(); err != nil {
		t.Fatalf("autarch resume: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "half\tdone\tCompleted") {
		t.Errorf("resume stdout = %q\n%s", out.String(), errb.String())
	}
	if got := gitCmd(t, dir, "show", "autarch/half:half.go"); !strings.Contains(got, "func Half") {
		t.Errorf("the killed pulse's work is not on the workflow branch: %q", got)
	}
	if got := gitCmd(t, dir, "log", "--format=%s", "main..autarch/half"); got != "feat(calc): add Half\n" {
		t.Errorf("workflow branch commits = %q", got)
	}
	if gitCmd(t, dir, "status", "--porcelain") != "" {
		t.Errorf("the user's checkout changed")
	}
}

func TestReviewBranchOutsideAWorkflow(t *testing.T) {
	bin := buildBinary(t)
	dir, steps := scriptedRepo(t, "testdata/review-branch.txt")
	gitCmd(t, dir, "checkout", "-q", "-b", "feature")
	f, err := os.OpenFile(filepath.Join(dir, "calc.go"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\n// Div divides a by b.\nfunc Div(a, b int) int { return a / b }\n")
	f.Close()
	gitCmd(t, dir, "-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-qam", "add Div")
	url, _ := scripted.Start(t, steps("", ""))
	var out, errb bytes.Buffer
	cmd := autarchCmd(context.Background(), bin, dir, url, "review", "--base", "main", "--json")
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("autarch review: %v\n%s", err, errb.String())
	}
	var res struct {
		Card struct {
			Recommendation, Summary, BaseRef string
		}
		Comments []struct {
			FilePath    string
			StartLine   int
			Severity    string
			PreExisting bool
		}
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("review JSON: %v\n%s", err, out.String())
	}
	if res.Card.Recommendation != "reject" || res.Card.BaseRef != "main" || len(res.Comments) != 1 ||
		res.Comments[0].FilePath != "calc.go" || res.Comments[0].StartLine != 7 || res.Comments[0].PreExisting {
		t.Errorf("review = %+v", res)
	}
}
