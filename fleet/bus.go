package fleet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/swarm"
)

// DefaultLease is how long a claim holds a run without a renewal.
const DefaultLease = 30 * time.Second

// Options tune a Fleet.
type Options struct {
	// Lease is how long a claim holds a run without renewal (DefaultLease
	// when 0); a worker renews it every third of it.
	Lease time.Duration
	// Replicas of the streams and buckets (0: as many servers as the
	// connection knows, at most 3).
	Replicas int
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// User names who answers from this handle (the submitter; Submitter()
	// when empty): it travels with each answer, and a worker accepts only
	// its run's submitter's (AnswersOf).
	User string
}

// Fleet is one process's handle on the fleet's streams and buckets.
type Fleet struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	runs    jetstream.KeyValue
	workers jetstream.KeyValue
	queue   jetstream.Stream
	lease   time.Duration
	now     func() time.Time
	// replicas of the streams and buckets (the state bucket, made when
	// first used).
	replicas int

	// limits and rates are the shared limits' buckets (limits.go); user
	// is who answers from this handle (Options.User).
	limits, rates jetstream.KeyValue
	user          string
}

// Open creates (or finds) the fleet's streams and buckets on a connection.
func Open(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, opts Options) (*Fleet, error) {
	f := &Fleet{nc: nc, js: js, lease: opts.Lease, now: opts.Now, user: opts.User}
	if f.lease <= 0 {
		f.lease = DefaultLease
	}
	if f.now == nil {
		f.now = time.Now
	}
	if f.user == "" {
		f.user = Submitter()
	}
	replicas := opts.Replicas
	if replicas <= 0 {
		replicas = min(max(len(nc.Servers()), 1), 3)
	}
	f.replicas = replicas
	var err error
	if f.queue, err = retried(ctx, func(ctx context.Context) (jetstream.Stream, error) {
		return swarm.EnsureStream(ctx, js, jetstream.StreamConfig{
			Name: queueStream, Description: "autarch fleet: runs waiting for a worker (one subject token per label)",
			Subjects: []string{queuePrefix + ".>"}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Replicas: replicas, Duplicates: 2 * time.Minute,
		})
	}); err != nil {
		return nil, fmt.Errorf("fleet: the queue stream: %w", err)
	}
	if _, err = retried(ctx, func(ctx context.Context) (jetstream.Stream, error) {
		return swarm.EnsureStream(ctx, js, jetstream.StreamConfig{
			Name: eventsStream, Description: "autarch fleet: each run's events (run.Event JSON) on its own subject",
			Subjects: []string{eventsPrefix + ".>"}, Retention: jetstream.LimitsPolicy, MaxAge: 7 * 24 * time.Hour,
			Storage: jetstream.FileStorage, Replicas: replicas,
		})
	}); err != nil {
		return nil, fmt.Errorf("fleet: the events stream: %w", err)
	}
	if f.runs, err = f.bucket(ctx, "runs", jetstream.KeyValueConfig{
		Bucket: runsBucket, Description: "autarch fleet: run records", History: 5,
	}); err != nil {
		return nil, err
	}
	if f.workers, err = f.bucket(ctx, "workers", jetstream.KeyValueConfig{
		Bucket: workersBucket, Description: "autarch fleet: workers and their heartbeats", History: 1, TTL: 24 * time.Hour,
	}); err != nil {
		return nil, err
	}
	if err := f.openLimits(ctx); err != nil {
		return nil, err
	}
	return f, nil
}

// bucket creates (or finds) the key-value bucket of cfg, on file with
// the fleet's replicas, retried; what names it in the error.
func (f *Fleet) bucket(ctx context.Context, what string, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	cfg.Storage, cfg.Replicas = jetstream.FileStorage, f.replicas
	kv, err := retried(ctx, func(ctx context.Context) (jetstream.KeyValue, error) {
		return swarm.EnsureKeyValue(ctx, f.js, cfg)
	})
	if err != nil {
		return nil, fmt.Errorf("fleet: the %s bucket: %w", what, err)
	}
	return kv, nil
}

// setupTries and setupWait bound Open's creation of each stream and bucket:
// a cluster that has just started answers once it has elected its
// JetStream leader, and a request sent before may get no answer at all.
const (
	setupTries = 12
	setupWait  = 5 * time.Second
)

// retried calls fn with a bounded context until it succeeds, the tries
// run out or ctx ends.
func retried[T any](ctx context.Context, fn func(context.Context) (T, error)) (T, error) {
	var v T
	var err error
	for range setupTries {
		cctx, cancel := context.WithTimeout(ctx, setupWait)
		v, err = fn(cctx)
		cancel()
		if err == nil || ctx.Err() != nil {
			return v, err
		}
	}
	return v, err
}

// Lease is how long a claim holds a run without renewal.
func (f *Fleet) Lease() time.Duration { return f.lease }

// Submit records a run as Queued and queues it; the returned run has its id.
func (f *Fleet) Submit(ctx context.Context, spec Spec) (Run, error) {
	if strings.TrimSpace(spec.Task) == "" {
		return Run{}, errors.New("fleet: the run has no task: say what it should do")
	}
	if spec.Repo == "" {
		return Run{}, errors.New("fleet: the run has no repository: pass --repo with a git URL every worker can fetch and push")
	}
	now := f.now()
	r := Run{ID: NewID(), Spec: spec, State: Queued, Submitted: now, Updated: now}
	data, _ := json.Marshal(r)
	rev, err := f.runs.Create(ctx, r.ID, data)
	if err != nil {
		return Run{}, fmt.Errorf("fleet: recording run %s: %w", r.ID, err)
	}
	r.Revision = rev
	if err := f.enqueue(ctx, r); err != nil {
		return Run{}, err
	}
	return r, nil
}

// enqueue puts a run's id on the queue subject of its labels.
func (f *Fleet) enqueue(ctx context.Context, r Run) error {
	msgID := fmt.Sprintf("%s-%d", r.ID, r.Attempts)
	if _, err := f.js.Publish(ctx, queueSubject(r.Spec.Labels), []byte(r.ID), jetstream.WithMsgID(msgID)); err != nil {
		return fmt.Errorf("fleet: queueing run %s: %w", r.ID, err)
	}
	return nil
}

// Get reads a run's record.
func (f *Fleet) Get(ctx context.Context, id string) (Run, error) {
	e, err := f.runs.Get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return Run{}, fmt.Errorf("%w %s (autarch fleet status lists them)", ErrNoRun, id)
	}
	if err != nil {
		return Run{}, fmt.Errorf("fleet: reading run %s: %w", id, err)
	}
	return decodeRun(e)
}

// eachKey calls fn with every key of kv, stopping at fn's first error;
// what names the keys in the error of a failed listing.
func eachKey(ctx context.Context, kv jetstream.KeyValue, what string, fn func(key string) error) error {
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		return fmt.Errorf("fleet: listing %s: %w", what, err)
	}
	for k := range keys.Keys() {
		if err := fn(k); err != nil {
			return err
		}
	}
	return nil
}

func decodeRun(e jetstream.KeyValueEntry) (Run, error) {
	var r Run
	if err := json.Unmarshal(e.Value(), &r); err != nil {
		return Run{}, fmt.Errorf("fleet: run %s: the record is not valid: %w", e.Key(), err)
	}
	r.Revision = e.Revision()
	return r, nil
}

// Runs lists every run, oldest first.
func (f *Fleet) Runs(ctx context.Context) ([]Run, error) {
	var out []Run
	err := eachKey(ctx, f.runs, "runs", func(k string) error {
		r, err := f.Get(ctx, k)
		if errors.Is(err, ErrNoRun) {
			return nil
		}
		if err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Run) int { return a.Submitted.Compare(b.Submitted) })
	return out, nil
}

// Workers lists the workers that have beaten since they started.
func (f *Fleet) Workers(ctx context.Context) ([]Worker, error) {
	var out []Worker
	err := eachKey(ctx, f.workers, "workers", func(k string) error {
		e, err := f.workers.Get(ctx, k)
		if err != nil {
			return nil // gone since listed
		}
		var w Worker
		if json.Unmarshal(e.Value(), &w) == nil {
			out = append(out, w)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Worker) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Beat records a worker's heartbeat.
func (f *Fleet) Beat(ctx context.Context, w Worker) error {
	w.Heartbeat = f.now()
	data, _ := json.Marshal(w)
	if _, err := f.workers.Put(ctx, workerKey(w.Name), data); err != nil {
		return fmt.Errorf("fleet: heartbeat of %s: %w", w.Name, err)
	}
	return nil
}

// Leave removes a worker's record (it stopped cleanly).
func (f *Fleet) Leave(ctx context.Context, name string) error {
	return f.workers.Delete(ctx, workerKey(name))
}

func workerKey(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, name)
}

// update changes a run's record with fn under a revision check, retrying
// when someone else wrote in between (fn sees the fresh record each time).
func (f *Fleet) update(ctx context.Context, id string, fn func(*Run) error) (Run, error) {
	for range 20 {
		r, err := f.Get(ctx, id)
		if err != nil {
			return Run{}, err
		}
		if err := fn(&r); err != nil {
			return r, err
		}
		r.Updated = f.now()
		data, _ := json.Marshal(r)
		rev, err := f.runs.Update(ctx, id, data, r.Revision)
		if err == nil {
			r.Revision = rev
			return r, nil
		}
		if !isWrongRevision(err) {
			return Run{}, fmt.Errorf("fleet: updating run %s: %w", id, err)
		}
	}
	return Run{}, fmt.Errorf("fleet: run %s changes too often to update; try again", id)
}

func isWrongRevision(err error) bool {
	return errors.Is(err, jetstream.ErrKeyRevisionMismatch) // code 10071, or 10164 on a replicated bucket
}

// Stop asks the worker running a run to stop it; a queued run is stopped
// at once.
func (f *Fleet) Stop(ctx context.Context, id string) (Run, error) {
	return f.update(ctx, id, func(r *Run) error {
		switch {
		case r.State.Ended():
			return fmt.Errorf("fleet: run %s is already %s", id, strings.ToLower(string(r.State)))
		case r.State == Queued:
			r.State, r.Reason = Stopped, "stopped before a worker claimed it"
		default:
			r.StopAsked = true
		}
		return nil
	})
}

// Resume queues a stopped or failed run again; a worker continues it from
// the last checkpoint its branch has on the remote.
func (f *Fleet) Resume(ctx context.Context, id string) (Run, error) {
	r, err := f.update(ctx, id, func(r *Run) error {
		if r.State != Stopped && r.State != Failed {
			return fmt.Errorf("fleet: run %s is %s: only a stopped or failed run resumes", id, strings.ToLower(string(r.State)))
		}
		r.State, r.Reason, r.StopAsked, r.Worker, r.Lease = Queued, "resumed", false, "", time.Time{}
		r.Attempts++ // a fresh message id for the queue's duplicate window
		return nil
	})
	if err != nil {
		return r, err
	}
	return r, f.enqueue(ctx, r)
}

// Publish sends a run's event on its subject.
func (f *Fleet) Publish(ctx context.Context, ev kernel.Event) error {
	if ev.At.IsZero() {
		ev.At = f.now()
	}
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	if _, err := f.js.Publish(ctx, eventsPrefix+"."+ev.Run.ID, data); err != nil {
		return fmt.Errorf("fleet: publishing an event of run %s: %w", ev.Run.ID, err)
	}
	return nil
}

// Follow calls fn with every event of a run from the first, in order,
// until fn returns false or ctx ends.
func (f *Fleet) Follow(ctx context.Context, id string, fn func(kernel.Event) bool) error {
	c, err := f.js.OrderedConsumer(ctx, eventsStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{eventsPrefix + "." + id}, DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return fmt.Errorf("fleet: following run %s: %w", id, err)
	}
	for {
		msgs, err := c.Fetch(100, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue // a node went away: the ordered consumer recreates itself
		}
		for m := range msgs.Messages() {
			var ev kernel.Event
			if json.Unmarshal(m.Data(), &ev) != nil {
				continue
			}
			if !fn(ev) {
				return nil
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// Answer sends a line the submitter typed to the worker running the run
// (an answer to its question or card).
func (f *Fleet) Answer(id, line string) error {
	m := nats.NewMsg(answersPrefix + "." + id)
	m.Data = []byte(line)
	if f.user != "" {
		m.Header.Set(submitterHeader, f.user)
	}
	return f.nc.PublishMsg(m)
}

// Answers subscribes to the lines sent to a run (see AnswersOf, which
// also checks who sent them).
func (f *Fleet) Answers(id string, fn func(line string)) (func(), error) {
	return f.AnswersOf(Run{ID: id}, fn, nil)
}

// consumerName is the durable consumer of one label set's subject,
// shared by every worker serving that set.
func consumerName(subject string) string {
	h := sha256.Sum256([]byte(subject))
	return "fleet_" + hex.EncodeToString(h[:8])
}
