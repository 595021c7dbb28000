package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/fleet"
)

// takeoverRig is a NATS server, the submitter's repository and its bare
// remote, and the fleet as the test reads it.
type takeoverRig struct {
	bin, nats, dir, remote, head string
	ctx                          context.Context
	f                            *fleet.Fleet
}

func newTakeoverRig(t *testing.T) *takeoverRig {
	t.Helper()
	r := &takeoverRig{bin: buildBinary(t)}
	_, urls := natsCluster(t, 1)
	r.nats = urls[0]
	r.dir, r.remote, r.head = fleetRepo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	r.ctx = ctx
	r.f = openFleetWith(ctx, t, r.nats, fleet.Options{Lease: 3 * time.Second})
	return r
}

// worker starts a --once worker on the model's script.
func (r *takeoverRig) worker(t *testing.T, name string, model *scripted.Server) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	hs := httptest.NewServer(model)
	t.Cleanup(hs.Close)
	cmd := fleetEnv(t, autarchCmd(r.ctx, r.bin, t.TempDir(), hs.URL+"/v1", "worker", "--nats", r.nats, "--dir", t.TempDir(), "--name", name, "--lease", "3s", "--once"), t.TempDir())
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, &log
}

func (r *takeoverRig) submit(t *testing.T, args ...string) string {
	t.Helper()
	args = append([]string{"submit", "--nats", r.nats, "--repo", r.remote, "--yes"}, args...)
	out, err := fleetEnv(t, autarchCmd(r.ctx, r.bin, r.dir, "", args...), t.TempDir()).Output()
	if err != nil {
		t.Fatalf("autarch submit: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// killAtSlowCall waits for the model's last step (a call that never
// answers), SIGKILLs the worker and returns the run's record then.
func (r *takeoverRig) killAtSlowCall(t *testing.T, id string, model *scripted.Server, w *exec.Cmd, log *bytes.Buffer) fleet.Run {
	t.Helper()
	for model.Remaining() > 0 {
		if r.ctx.Err() != nil {
			t.Fatalf("the run never reached its slow model call:\n%s", log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := w.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	w.Wait()
	run, err := r.f.Get(r.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// finish waits for the takeover's --once worker and returns the run.
func (r *takeoverRig) finish(t *testing.T, id string, w *exec.Cmd, log *bytes.Buffer, model *scripted.Server) fleet.Run {
	t.Helper()
	if err := w.Wait(); err != nil {
		t.Fatalf("the takeover's worker: %v\n%s\nevents:\n%s", err, log.String(), runEvents(r.f, id))
	}
	for _, e := range model.Errors() {
		t.Errorf("the takeover's model: %s", e)
	}
	if n := model.Remaining(); n > 0 {
		t.Errorf("the takeover's model: %d step(s) never requested", n)
	}
	run, err := r.f.Get(r.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if run.State != fleet.Completed || run.Attempts != 2 {
		t.Fatalf("after the takeover the run is %s (attempt %d): %s\nevents:\n%s", run.State, run.Attempts, run.Reason, runEvents(r.f, id))
	}
	if ev := runEvents(r.f, id); !strings.Contains(ev, "resumes from the state saved by attempt 1") {
		t.Errorf("the takeover did not resume from the saved state:\n%s", ev)
	}
	return run
}

// checkBranch checks that the remote's branch has the subjects, each
// commit once and in order, exactly the commits the record has.
func (r *takeoverRig) checkBranch(t *testing.T, run fleet.Run, subjects ...string) {
	t.Helper()
	commits := strings.Fields(gitCmd(t, r.remote, "rev-list", "--reverse", r.head+".."+run.Branch))
	if !slices.Equal(commits, run.Commits) {
		t.Errorf("the remote's %s has %v, the record %v", run.Branch, commits, run.Commits)
	}
	got := strings.Split(strings.TrimSpace(gitCmd(t, r.remote, "log", "--reverse", "--format=%s", r.head+".."+run.Branch)), "\n")
	if !slices.Equal(got, subjects) {
		t.Errorf("%s has commits %q, want %q", run.Branch, got, subjects)
	}
}

// A workflow whose worker is SIGKILLed after pulse 1's checkpoint was
// pushed is resumed by the next worker from its saved state: scope,
// research and plan are not asked again (the takeover's script starts in
// pulse 2 and expects the pulsing agent's tools), pulse 1 is not run
// again, and the branch has pulse 1's commit once.
func TestFleetTakeoverResumesWorkflow(t *testing.T) {
	r := newTakeoverRig(t)
	steps := fullSteps("Triple", "Quad")
	first := mustScript(t, append(slices.Clone(steps[:6]), `{"delay_ms": 120000, "text": "never answered: the worker is killed"}`)...)
	resumed := `{"expect": {"tools": ["complete_pulse"], "lastUserContains": "Add Quad"}, ` + strings.TrimPrefix(steps[6], "{")
	second := mustScript(t, resumed, steps[7], steps[8])

	w1, log1 := r.worker(t, "w1", first)
	id := r.submit(t, "--name", "two", "Add Triple and Quad")
	dead := r.killAtSlowCall(t, id, first, w1, log1)
	if len(dead.Commits) != 1 || dead.Saved == nil || dead.Saved.Commits != 1 {
		t.Fatalf("when w1 was killed the record had commits %v and state %+v; want pulse 1's commit pushed and a state saved after it\n%s", dead.Commits, dead.Saved, log1.String())
	}
	t.Logf("w1's last saved state: %s, %d bytes", dead.Saved.Object, dead.Saved.Size)
	w2, log2 := r.worker(t, "w2", second)
	run := r.finish(t, id, w2, log2, second)
	if run.Branch != "autarch/two" {
		t.Errorf("the run's branch is %q", run.Branch)
	}
	r.checkBranch(t, run, "feat(calc): add Triple", "feat(calc): add Quad")
	if run.Commits[0] != dead.Commits[0] {
		t.Errorf("pulse 1's commit changed from %s to %s", dead.Commits[0], run.Commits[0])
	}
}

// A job whose worker is SIGKILLed after it made its branch resumes on the
// same branch, in the same conversation, and commits there once.
func TestFleetTakeoverResumesJob(t *testing.T) {
	r := newTakeoverRig(t)
	steps := jobSteps("add-inc", "Inc", "inc.go")
	first := mustScript(t, steps[0], `{"delay_ms": 120000, "text": "never answered: the worker is killed"}`)
	second := mustScript(t, steps[1], steps[2])

	w1, log1 := r.worker(t, "w1", first)
	id := r.submit(t, "--kind", "job", "--mode", "genius", "Add Inc")
	dead := r.killAtSlowCall(t, id, first, w1, log1)
	if !strings.HasPrefix(dead.Branch, "ai/") || !strings.HasSuffix(dead.Branch, "/add-inc") || dead.Saved == nil {
		t.Fatalf("when w1 was killed the record had branch %q and state %+v\n%s", dead.Branch, dead.Saved, log1.String())
	}
	w2, log2 := r.worker(t, "w2", second)
	run := r.finish(t, id, w2, log2, second)
	if run.Branch != dead.Branch {
		t.Errorf("the takeover moved the job from %s to %s", dead.Branch, run.Branch)
	}
	r.checkBranch(t, run, "feat(calc): add Inc")
	if out := gitCmd(t, r.remote, "for-each-ref", "--format=%(refname)", "refs/heads/ai/"); strings.Count(out, "\n") != 1 {
		t.Errorf("the remote has job branches:\n%s", out)
	}
}
