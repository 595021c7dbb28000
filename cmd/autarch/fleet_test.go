package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// fleetEnv gives a process its own home (its trust store and
// configuration), as a worker on another machine has; the sandbox's Go
// build cache stays the machine's (a cold one compiles the standard
// library in every quality gate).
func fleetEnv(t *testing.T, cmd *exec.Cmd, home string) *exec.Cmd {
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(cmd.Env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_CACHE_HOME="+cache)
	return cmd
}

// One machine, nothing to set up: a worker and a submitter on the
// repository's embedded NATS (--root); the worker clones the remote,
// runs the workflow as autarch run does and pushes its branch; the
// submitter follows the run to its end; the user's checkout is untouched.
func TestFleetOneMachine(t *testing.T) {
	m := startOneMachine(t, "testdata/run-full.txt", "", "", "--name", "w1")
	dir, remote := m.dir, m.remote
	head := gitCmd(t, dir, "rev-parse", "HEAD")
	var sout, serr bytes.Buffer
	rel, err := filepath.Rel(dir, remote) // a path on the submitter's machine, as typed
	if err != nil {
		t.Fatal(err)
	}
	submit := m.cmd(t, "submit", "--root", dir, "--repo", rel, "--name", "calc-sub", "--yes", "--wait", "Add Sub to calc")
	submit.Stdout, submit.Stderr = &sout, &serr
	serrRun := submit.Run()
	werrRun := m.worker.Wait()
	if serrRun != nil || werrRun != nil {
		t.Fatalf("submit: %v\n%s\nworker: %v\n%s", serrRun, serr.String(), werrRun, m.werr.String())
	}
	id := strings.TrimSpace(sout.String())
	for _, want := range []string{"worker w1 runs it (attempt 1)", "◆ pulse pulse-1 succeeded: feat(calc): add Sub (", "autarch: run " + id + " completed: completed on autarch/calc-sub"} {
		if !strings.Contains(serr.String(), want) {
			t.Errorf("the submitter's terminal lacks %q:\n%s", want, serr.String())
		}
	}
	if got := gitCmd(t, remote, "log", "--format=%s", "main..autarch/calc-sub"); got != "feat(calc): add Sub\n" {
		t.Errorf("the remote's branch has %q", got)
	}
	// the checkpoint's receipt travels with the branch: anyone can verify it
	if note := gitCmd(t, remote, "notes", "--ref", "refs/notes/autarch", "show", "autarch/calc-sub"); !strings.Contains(note, strings.TrimSpace(gitCmd(t, remote, "rev-parse", "autarch/calc-sub^{tree}"))) {
		t.Errorf("the remote's receipt of the checkpoint does not name its tree:\n%s", note)
	}
	if got := gitCmd(t, dir, "rev-parse", "HEAD"); got != head || gitCmd(t, dir, "status", "--porcelain") != "" {
		t.Errorf("the submitter's checkout changed")
	}
	if out := gitCmd(t, dir, "branch", "--list", "autarch/*"); out != "" {
		t.Errorf("the submitter's repository got branches: %q", out)
	}
	status := m.cmd(t, "fleet", "status", "--root", dir, "--json")
	out, err := status.Output()
	if err != nil || !strings.Contains(string(out), `"state": "Completed"`) || !strings.Contains(string(out), `"branch": "autarch/calc-sub"`) {
		t.Errorf("fleet status = %s (%v)", out, err)
	}
}

// Without --yes, the run's question and cards are asked on the
// submitter's terminal: each prompt is answered with the next line typed
// there, sent back over NATS to the worker.
func TestFleetSubmitterAnswers(t *testing.T) {
	m := startOneMachine(t, "testdata/run-full.txt", "", "", "--name", "w1")
	var sout, serr bytes.Buffer
	submit := m.cmd(t, "submit", "--root", m.dir, "--repo", m.remote, "--name", "calc-sub", "--wait", "Add Sub to calc")
	// "1": Sub, the question's first option; then yes to every card and
	// confirmation
	submit.Stdin = strings.NewReader("1\n" + strings.Repeat("y\n", 30))
	submit.Stdout, submit.Stderr = &sout, &serr
	serrRun := submit.Run()
	werrRun := m.worker.Wait()
	if serrRun != nil || werrRun != nil {
		t.Fatalf("submit: %v\n%s\nworker: %v\n%s", serrRun, serr.String(), werrRun, m.werr.String())
	}
	for _, want := range []string{"Which operation?", "number: ", "■ plan approved"} {
		if !strings.Contains(serr.String(), want) {
			t.Errorf("the submitter's terminal lacks %q:\n%s", want, serr.String())
		}
	}
	if strings.Contains(serr.String(), "auto-answered") {
		t.Errorf("the run answered itself:\n%s", serr.String())
	}
	if got := gitCmd(t, m.remote, "log", "--format=%s", "main..autarch/calc-sub"); got != "feat(calc): add Sub\n" {
		t.Errorf("the remote's branch has %q", got)
	}
}

// autarch fleet stop ID stops a running fleet run at its worker's next
// lease renewal; autarch fleet resume ID queues it again. autarch stop
// and autarch resume do the same with a fleet run's id (issue 34).
func TestFleetStopAndResume(t *testing.T) {
	for _, verbs := range [][2][]string{
		{{"fleet", "stop"}, {"fleet", "resume"}},
		{{"stop"}, {"resume"}},
	} {
		t.Run(strings.Join(verbs[0], "-"), func(t *testing.T) {
			m := startOneMachine(t, "testdata/run-kill.txt", "", "05", "--lease", "3s")
			dir, remote, model, werr := m.dir, m.remote, m.model, &m.werr
			id := strings.TrimSpace(strings.Split(m.run(t, "submit", "--root", dir, "--repo", remote, "--name", "half", "--yes", "Add Half"), "\n")[0])
			// the run is in its slow model call (a worker that exits
			// before is killed and its log shown)
			testkit.CheckForChild(t, m.worker, werr, 2*time.Minute, 50*time.Millisecond, func() error {
				if n := model.Remaining(); n > 0 {
					return fmt.Errorf("the run never reached its slow model call: %d model steps left", n)
				}
				return nil
			})
			if out := m.run(t, append(verbs[0], "--root", dir, id)...); !strings.Contains(out, "stops run "+id) {
				t.Errorf("%v said %q", verbs[0], out)
			}
			m.worker.Wait() // --once: the stopped run was its one
			status := m.run(t, "fleet", "status", "--root", dir, "--json")
			if !strings.Contains(status, `"state": "Stopped"`) || !strings.Contains(status, "stopped by autarch fleet stop") {
				t.Fatalf("after stop, fleet status = %s\nworker:\n%s", status, werr.String())
			}
			m.run(t, append(verbs[1], "--root", dir, id)...)
			if status := m.run(t, "fleet", "status", "--root", dir); !strings.Contains(status, id+"  workflow  Queued") {
				t.Errorf("after resume, fleet status = %s", status)
			}
		})
	}
}

// oneMachine is a submitter's repository from a txtar script, a bare
// remote cloned from it, the scripted model (the script's steps from
// "from" to "to") and one --once worker on the repository's embedded NATS.
type oneMachine struct {
	bin, dir, remote string
	ctx              context.Context
	model            *scripted.Server
	worker           *exec.Cmd
	werr             lockedBuffer // the worker's stderr, read while it runs
}

func startOneMachine(t *testing.T, script, from, to string, workerArgs ...string) *oneMachine {
	t.Helper()
	m, url := newOneMachine(t, script, from, to)
	m.startWorker(t, url, append([]string{"--root", m.dir}, workerArgs...)...)
	return m
}

// newOneMachine is oneMachine without its worker yet; url is the
// scripted model's.
func newOneMachine(t *testing.T, script, from, to string) (m *oneMachine, url string) {
	t.Helper()
	m = &oneMachine{bin: buildBinary(t)}
	m.dir, url, m.model = scriptedProject(t, script, from, to)
	m.remote = filepath.Join(t.TempDir(), "remote.git")
	gitCmd(t, t.TempDir(), "clone", "-q", "--bare", m.dir, m.remote)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	m.ctx = ctx
	return m, url
}

// startWorker starts the --once worker with args (its NATS first) on the
// scripted model at url.
func (m *oneMachine) startWorker(t *testing.T, url string, args ...string) {
	t.Helper()
	args = append(append([]string{"worker"}, args...), "--dir", t.TempDir(), "--once")
	m.worker = fleetEnv(t, autarchCmd(m.ctx, m.bin, m.dir, url, args...), t.TempDir())
	m.worker.Stderr = &m.werr
	if err := m.worker.Start(); err != nil {
		t.Fatal(err)
	}
}

// cmd is autarch with args in the submitter's repository, with a home of
// its own.
func (m *oneMachine) cmd(t *testing.T, args ...string) *exec.Cmd {
	return fleetEnv(t, autarchCmd(m.ctx, m.bin, m.dir, "", args...), t.TempDir())
}

// run runs m.cmd and returns its output; a failure fails the test.
func (m *oneMachine) run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := m.cmd(t, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("autarch %v: %v\n%s", args, err, out)
	}
	return string(out)
}
