package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/fleet"
	"github.com/autarch-dev/autarch/workspace/git"
	"github.com/autarch-dev/autarch/workspace/trust"
)

func workerVerb() verb {
	return verb{
		name:    "worker",
		usage:   "autarch worker (--nats URL [--creds FILE] | --root REPO) [--labels a,b] [--dir DIR] [--concurrency N] [--once] [--name NAME] [--rpm N] [--tpm N] [--price-prompt USD] [--price-completion USD]",
		summary: "join the fleet: claim queued workflows and jobs, run them in clones, push their branches",
		run:     runWorker,
	}
}

// fleetBase is the local branch a worker's clone starts on: the run's
// base commit, or the tip its branch reached on the remote.
const fleetBase = "fleet-base"

func runWorker(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("worker", io)
	ff := addFleetFlags(fs)
	lf := addLimitFlags(fs)
	labelsFlag := fs.String("labels", "", "comma-separated labels: this worker takes runs whose labels it all has")
	home, _ := os.UserCacheDir()
	dir := fs.String("dir", filepath.Join(home, "autarch", "fleet"), "where each run gets its own clone")
	concurrency := fs.Int("concurrency", 1, "how many runs at once")
	once := fs.Bool("once", false, "take one run, run it and exit with its result (CI steps, Kubernetes Jobs)")
	host, _ := os.Hostname()
	name := fs.String("name", fmt.Sprintf("%s-%d", host, os.Getpid()), "this worker's name in autarch fleet status")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if err := errors.Join(ff.check(), lf.check()); err != nil {
		return fail(io, "worker", 2, err)
	}
	labels, err := fleet.ParseLabels(*labelsFlag)
	if err != nil {
		fmt.Fprintf(io.err, "autarch worker: --labels: %v\n", err)
		return 2
	}
	if *concurrency < 1 {
		fmt.Fprintf(io.err, "autarch worker: --concurrency %d: give 1 or more\n", *concurrency)
		return 2
	}
	log := slog.New(slog.NewTextHandler(io.err, &slog.HandlerOptions{Level: slog.LevelWarn}))
	f, closeFleet, err := ff.open(ctx, log)
	if err != nil {
		return fail(io, "worker", 1, err)
	}
	defer closeFleet()
	claims, err := f.NewClaimer(ctx, *name, labels, log)
	if err != nil {
		return fail(io, "worker", 1, err)
	}
	w := &fleetWorker{f: f, name: *name, labels: labels, dir: *dir, io: io, log: log, limits: lf}
	beatCtx, stopBeat := context.WithCancel(ctx)
	defer stopBeat()
	go w.beat(beatCtx)
	fmt.Fprintf(io.err, "autarch worker %s: waiting for runs%s\n", *name, labelWords(labels))
	if *once {
		cl, err := claims.Next(ctx)
		if err != nil {
			fmt.Fprintf(io.err, "autarch worker: no run claimed: %v\n", err)
			return 1
		}
		defer f.Leave(context.WithoutCancel(ctx), *name)
		return w.execute(ctx, cl)
	}
	slots := make(chan struct{}, *concurrency)
	var wg sync.WaitGroup
	for ctx.Err() == nil {
		slots <- struct{}{}
		cl, err := claims.Next(ctx)
		if err != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-slots }()
			w.execute(ctx, cl)
		})
	}
	wg.Wait()
	f.Leave(context.WithoutCancel(ctx), *name)
	return 0
}

func labelWords(labels []string) string {
	if len(labels) == 0 {
		return " (runs without labels)"
	}
	return " labelled " + strings.Join(labels, ", ")
}

// fleetWorker runs claimed runs as autarch run and autarch job do.
type fleetWorker struct {
	f      *fleet.Fleet
	name   string
	labels []string
	dir    string
	io     stdio
	log    *slog.Logger
	limits *limitFlags

	mu   sync.Mutex
	runs []string
}

// beat records the worker's heartbeat and runs until ctx ends.
func (w *fleetWorker) beat(ctx context.Context) {
	once := func() bool {
		w.mu.Lock()
		rec := fleet.Worker{Name: w.name, Labels: w.labels, Runs: append([]string(nil), w.runs...)}
		w.mu.Unlock()
		if err := w.f.Beat(ctx, rec); err != nil && ctx.Err() == nil {
			w.log.Warn("fleet: heartbeat", "err", err)
		}
		return true
	}
	once()
	fleet.Every(ctx, w.f.Lease()/3, once)
}

func (w *fleetWorker) track(id string, on bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if on {
		w.runs = append(w.runs, id)
		return
	}
	for i, r := range w.runs {
		if r == id {
			w.runs = append(w.runs[:i], w.runs[i+1:]...)
			return
		}
	}
}

var errStopAsked = errors.New("stopped by autarch fleet stop")

// execute runs one claimed run to its end and records how it ended;
// it returns the exit code autarch run or autarch job gave.
func (w *fleetWorker) execute(ctx context.Context, cl *fleet.Claim) int {
	run := cl.Run
	w.track(run.ID, true)
	defer w.track(run.ID, false)
	bg := context.WithoutCancel(ctx)
	publish := func(kind kernel.EventKind, status kernel.Status, text string) {
		if err := w.f.Publish(bg, kernel.Event{Run: run.Ref(), Kind: kind, Status: status, Text: text}); err != nil {
			w.log.Warn("fleet: publishing an event", "run", run.ID, "err", err)
		}
	}
	claimed := fmt.Sprintf("worker %s runs it (attempt %d)", w.name, run.Attempts)
	if cl.TakenOver != "" {
		claimed += "; taken over from " + cl.TakenOver + ", whose lease expired"
	}
	publish(kernel.EventStatus, kernel.Running, claimed)
	fmt.Fprintf(w.io.err, "autarch worker: run %s: %s\n", run.ID, claimed)

	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go cl.Keep(rctx, func(err error) { cancel(err) }, func() { cancel(errStopAsked) })

	gate := &fleetGate{f: w.f, rate: w.limits.rate, submitter: run.Spec.Submitter, pricing: w.limits.pricing,
		say: func(s string) { publish(kernel.EventMessage, "", s) }, stop: cancel, log: w.log}
	state, reason, code := w.work(withModelGate(rctx, gate), cl, publish)
	var over *fleet.OverBudgetError
	switch cause := context.Cause(rctx); {
	case errors.Is(cause, fleet.ErrLeaseLost):
		fmt.Fprintf(w.io.err, "autarch worker: run %s: %v\n", run.ID, cause)
		return 1
	case errors.Is(cause, errStopAsked):
		state, reason = fleet.Stopped, errStopAsked.Error()+"; continue it with: autarch fleet resume "+run.ID
	case errors.As(cause, &over):
		state, reason, code = fleet.Stopped, over.Error()+", then: autarch fleet resume "+run.ID, 3
	case ctx.Err() != nil:
		// this worker is shutting down: the lease runs out and another
		// worker takes the run over from its last pushed checkpoint
		return 1
	}
	if err := cl.Finish(bg, state, reason); err != nil {
		fmt.Fprintf(w.io.err, "autarch worker: run %s: %v\n", run.ID, err)
		return 1
	}
	if state == fleet.Completed { // nothing resumes a completed run
		if err := w.f.DropState(bg, cl.Current()); err != nil {
			w.log.Warn("fleet: dropping the run's saved state", "run", run.ID, "err", err)
		}
	}
	status := map[fleet.State]kernel.Status{fleet.Completed: kernel.Done, fleet.Stopped: kernel.Stopped}[state]
	if status == "" {
		status = kernel.Failed
	}
	publish(kernel.EventStatus, status, reason)
	fmt.Fprintf(w.io.err, "autarch worker: run %s %s: %s\n", run.ID, strings.ToLower(string(state)), reason)
	return code
}

// work clones the run's repository, runs it as the CLI's run or job verb
// would, pushes its branch's checkpoints as they are made, and says how
// it ended.
func (w *fleetWorker) work(ctx context.Context, cl *fleet.Claim, publish func(kernel.EventKind, kernel.Status, string)) (fleet.State, string, int) {
	run := cl.Current() // the claim's renewals run meanwhile
	say := func(text string) { publish(kernel.EventMessage, "", text) }
	dir := filepath.Join(w.dir, fmt.Sprintf("%s-%d", run.ID, run.Attempts))
	os.RemoveAll(dir) // a clone a dead attempt of this worker left
	repo, resume, err := w.checkout(ctx, run, dir, say)
	if err != nil {
		return fleet.Failed, fmt.Sprintf("%v; check that worker %s can reach %s, then: autarch fleet resume %s", err, w.name, run.Spec.Repo, run.ID), 1
	}
	switch resume.ended {
	case fleet.Completed:
		return fleet.Completed, resume.why, 0
	case fleet.Failed:
		return fleet.Failed, resume.why, 1
	}
	if run.Spec.BaseCommit == "" && run.Branch == "" { // every later attempt starts from this very commit
		base, err := repo.ResolveCommit(ctx, fleetBase)
		if err == nil {
			err = cl.Record(ctx, func(r *fleet.Run) { r.Spec.BaseCommit = base })
		}
		if err != nil {
			return fleet.Failed, "recording the base commit: " + err.Error(), 1
		}
	}
	if msg := trustForRun(dir, run.Spec.ConfigDigest); msg != "" {
		say(msg)
	}
	in, answer := io.Pipe()
	unsub, err := w.f.AnswersOf(run, func(line string) { fmt.Fprintln(answer, strings.TrimRight(line, "\n")) }, say)
	if err != nil {
		return fleet.Failed, err.Error(), 1
	}
	defer unsub()
	defer answer.Close()
	p := &pusher{repo: repo, url: run.Spec.Repo, cl: cl, pushed: resume.pushed(), commits: len(run.Commits)}
	state := &runState{cl: cl, p: p, file: store.Path(repo.StateDir())}
	defer state.close()
	saveState := func() {
		if err := state.save(ctx); err != nil && ctx.Err() == nil {
			w.log.Warn("fleet: saving the run's state", "run", run.ID, "err", err)
		}
	}
	out := &eventWriter{emit: publish, mark: saveState}
	sio := stdio{in: remoteInput{Reader: in, interactive: !run.Spec.Yes}, out: out, err: out}

	pctx, stopPush := context.WithCancel(ctx)
	pushDone := make(chan struct{})
	go func() {
		defer close(pushDone)
		p.loop(pctx)
	}()
	var code int
	if resume.ref != "" {
		code = runResume(ctx, sio, w.limits.priced(resumeArgs(dir, run.Spec, resume.ref)))
	} else if run.Spec.Kind == fleet.Job {
		code = runJob(ctx, sio, w.limits.priced(jobArgs(dir, run.Spec)))
	} else {
		code = runRun(ctx, sio, w.limits.priced(workflowArgs(dir, run.Spec)))
	}
	stopPush()
	<-pushDone
	if err := p.sync(context.WithoutCancel(ctx)); err != nil {
		return fleet.Failed, err.Error() + "; resume it with: autarch fleet resume " + run.ID, 1
	}
	if code != 0 && ctx.Err() == nil { // what autarch fleet resume continues from
		saveState()
	}
	switch code {
	case 0:
		return fleet.Completed, "completed on " + orDash(p.branch()), 0
	case 3:
		return fleet.Stopped, "it waits for a human or halted (" + out.last() + "); continue it with: autarch fleet resume " + run.ID, 3
	}
	return fleet.Failed, out.last() + "; once the cause is fixed: autarch fleet resume " + run.ID, 1
}

// workflowArgs are autarch run's arguments for a fleet workflow.
func workflowArgs(dir string, s fleet.Spec) []string {
	args := []string{"--root", dir, "--base", fleetBase}
	if s.Name != "" {
		args = append(args, "--name", s.Name)
	}
	if s.Path != "" && s.Path != "auto" {
		args = append(args, "--path", s.Path)
	}
	return append(commonArgs(s, args), s.Task)
}

// jobArgs are autarch job's arguments for a fleet job.
func jobArgs(dir string, s fleet.Spec) []string {
	args := []string{"--root", dir, "--base", fleetBase}
	if s.Mode != "" {
		args = append(args, "--mode", s.Mode)
	}
	return append(commonArgs(s, args), s.Task)
}

func commonArgs(s fleet.Spec, args []string) []string {
	if s.Yes {
		args = append(args, "--yes")
	}
	if s.Budget > 0 {
		args = append(args, "--budget", fmt.Sprint(s.Budget))
	}
	return args
}

// trustForRun trusts the clone's executable configuration (hooks, MCP
// servers, quality commands) when it is exactly what the submitter
// trusted (the digest travelling with the run); otherwise the run goes
// without it, and the returned message says so.
func trustForRun(dir, digest string) string {
	cfg, err := trust.Read(dir)
	if err != nil {
		return "the repository's configuration could not be read (" + err.Error() + "): the run goes without its hooks, MCP servers and quality commands"
	}
	if cfg.Empty() {
		return ""
	}
	if digest == "" || cfg.Digest() != digest {
		return "the repository's configuration (" + strings.Join(cfg.Names(), ", ") + ") is not the one the submitter trusted: the run goes without its hooks, MCP servers and quality commands (trust it with autarch trust, then submit again)"
	}
	st, err := trust.Open()
	if err == nil {
		err = st.Trust(cfg)
	}
	if err != nil {
		return "recording the submitter's trust failed (" + err.Error() + "): the run goes without the configuration's hooks, MCP servers and quality commands"
	}
	return ""
}

// remoteInput is the answers a submitter sends over NATS, read as the
// run's terminal: interactive unless the run approves everything itself.
type remoteInput struct {
	io.Reader
	interactive bool
}

// Interactive tells isTerminal whether questions go to the submitter.
func (r remoteInput) Interactive() bool { return r.interactive }

// eventWriter turns what the run verbs print into the run's events: each
// whole line a message, a prompt without its newline as text.
type eventWriter struct {
	emit func(kernel.EventKind, kernel.Status, string)
	// mark, when set, is called (before the run goes on) after a line
	// that marks its progress (marksProgress).
	mark func()

	mu    sync.Mutex
	buf   []byte
	lines []string // the last few, for a failure's reason
}

func (e *eventWriter) Write(p []byte) (int, error) {
	marked := false
	defer func() {
		if marked && e.mark != nil {
			e.mark()
		}
	}()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.buf = append(e.buf, p...)
	for {
		i := strings.IndexByte(string(e.buf), '\n')
		if i < 0 {
			break
		}
		line := string(e.buf[:i])
		e.buf = e.buf[i+1:]
		e.emit(kernel.EventMessage, "", line)
		marked = marked || marksProgress(line)
		if strings.TrimSpace(line) != "" {
			e.lines = append(e.lines, strings.TrimSpace(line))
			if len(e.lines) > 3 {
				e.lines = e.lines[1:]
			}
		}
	}
	if len(e.buf) > 0 { // a prompt waiting for an answer
		e.emit(kernel.EventText, "", string(e.buf))
		e.buf = nil
	}
	return len(p), nil
}

// last is the run's last line of output.
func (e *eventWriter) last() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.lines) == 0 {
		return "it ended without a word"
	}
	return e.lines[len(e.lines)-1]
}

// pusher pushes the run's branch (autarch/<name> for a workflow,
// ai/<id8>/<name> for a job) to the remote whenever a checkpoint moves
// it, and records its commits in the run's record, in order.
type pusher struct {
	repo *git.Repo
	url  string
	cl   *fleet.Claim

	mu     sync.Mutex
	pushed map[string]string
	last   string
	notes  string // the receipts' tip last pushed (git.NotesRef)
	// commits counts the run's commits on the remote (Run.Commits).
	commits int
}

func (p *pusher) branch() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

// pushEvery is how often a worker looks for a new checkpoint to push.
const pushEvery = 250 * time.Millisecond

func (p *pusher) loop(ctx context.Context) {
	fleet.Every(ctx, pushEvery, func() bool {
		p.sync(ctx)
		return true
	})
}

// sync pushes every run branch whose tip moved since the last push.
func (p *pusher) sync(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, prefix := range []string{"autarch/", "ai/"} {
		tips, err := p.repo.Branches(ctx, prefix)
		if err != nil {
			return err
		}
		for b, tip := range tips {
			from, ok := p.pushed[b]
			if ok && from == tip {
				continue
			}
			if !ok {
				from = fleetBase
			}
			// a worker whose lease was taken over pushes nothing more
			if err := p.cl.Record(ctx, func(*fleet.Run) {}); err != nil {
				return err
			}
			if err := p.repo.Push(ctx, p.url, b); err != nil {
				return err
			}
			out, err := p.repo.Git(ctx, p.repo.Top(), nil, "rev-list", "--reverse", from+".."+tip)
			if err != nil {
				return err
			}
			commits := strings.Fields(string(out))
			if err := p.cl.Record(ctx, func(r *fleet.Run) {
				r.Branch, r.Commits = b, append(r.Commits, commits...)
				p.commits = len(r.Commits)
			}); err != nil {
				return err
			}
			p.pushed[b], p.last = tip, b
		}
	}
	return p.pushNotes(ctx)
}

// pushNotes pushes the checkpoints' receipts (git notes) when they moved,
// so that anyone can verify the run's branch (autarch receipt verify).
func (p *pusher) pushNotes(ctx context.Context) error {
	tip, err := p.repo.NotesTip(ctx)
	if err != nil || tip == "" || tip == p.notes {
		return err
	}
	if err := p.repo.PushNotes(ctx, p.url); err != nil {
		return err
	}
	// the merge with the remote's receipts moved our tip again
	if p.notes, err = p.repo.NotesTip(ctx); err != nil {
		return err
	}
	return nil
}
