package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// A submitter's fleet budget: a worker adds each model call's tokens to
// alice's spend; the call that finds her over budget is refused and the
// run stops there, resumable, saying why and what to do. Her next run is
// not claimed: it waits in the queue and autarch fleet status says why.
// The fleet's rate limit (autarch fleet limits) spaces the run's model
// requests, and its events say so.
func TestFleetBudgetPerSubmitter(t *testing.T) {
	// an external NATS, so that the short-lived fleet commands host
	// nothing the worker needs (the embedded one moves to another process
	// when its host exits)
	_, urls := natsCluster(t, 1)
	nurl := urls[0]
	m, url := newOneMachine(t, "testdata/job.txt", "", "03")
	m.run(t, "fleet", "budget", "--nats", nurl, "alice", "--tokens", "2000")
	if out := m.run(t, "fleet", "limits", "--nats", nurl, "--rpm", "20"); !strings.Contains(out, "20 requests/min") {
		t.Errorf("fleet limits said %q", out)
	}
	m.startWorker(t, url, "--nats", nurl, "--name", "w1")
	// each step of the script spends 1050 tokens: the third call is over
	var serr bytes.Buffer
	submit := m.cmd(t, "submit", "--nats", nurl, "--repo", m.remote, "--kind", "job", "--submitter", "alice", "--yes", "--wait", "Fix Add")
	submit.Stderr = &serr
	err := submit.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("submit --wait = %v, want exit 3 (stopped)\n%s\nworker:\n%s", err, serr.String(), m.werr.String())
	}
	m.worker.Wait()
	for _, want := range []string{
		"waiting for the fleet's rate limit (20 requests/min on 127.0.0.1:",
		"stopped: alice is over its fleet budget: spent 2100 of 2000 tokens; raise it with: autarch fleet budget alice --usd N",
		"then: autarch fleet resume ",
	} {
		if !strings.Contains(serr.String(), want) {
			t.Errorf("the submitter's terminal lacks %q:\n%s", want, serr.String())
		}
	}
	if out := m.run(t, "fleet", "budget", "--nats", nurl); !strings.Contains(out, "alice") || !strings.Contains(out, "2100") || !strings.Contains(out, "over") {
		t.Errorf("fleet budget = %s", out)
	}

	// her next run waits in the queue: a worker does not claim it
	id := strings.TrimSpace(strings.Split(m.run(t, "submit", "--nats", nurl, "--repo", m.remote, "--kind", "job", "--submitter", "alice", "--yes", "Fix Add again"), "\n")[0])
	wctx, stopWorker := context.WithCancel(m.ctx)
	defer stopWorker()
	var werr bytes.Buffer
	worker := fleetEnv(t, autarchCmd(wctx, m.bin, m.dir, "", "worker", "--nats", nurl, "--dir", t.TempDir(), "--once", "--name", "w2", "--lease", "3s"), t.TempDir())
	worker.Stderr = &werr
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stopWorker(); worker.Wait() }()
	want := "run " + id + ": waiting in the queue: alice is over its fleet budget: spent 2100 of 2000 tokens"
	testkit.CheckForChild(t, worker, &werr, 60*time.Second, 200*time.Millisecond, func() error {
		out := m.run(t, "fleet", "status", "--nats", nurl)
		if !strings.Contains(out, want) {
			return fmt.Errorf("fleet status lacks %q:\n%s", want, out)
		}
		if !strings.Contains(out, id+"  job   Queued") {
			t.Fatalf("the run of a submitter over budget left the queue:\n%s", out)
		}
		return nil
	})
}
