package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	kernel "github.com/autarch-dev/autarch/agent/run"
)

// Claim is a worker's hold on one run: its queue message stays
// unacknowledged and its record names the worker until Finish.
type Claim struct {
	Run Run
	// TakenOver names the worker whose lease expired, when this claim
	// took the run over from it ("" for a first claim).
	TakenOver string

	f       *Fleet
	id      string // Run.ID, read without the lock
	worker  string
	attempt int
	msg     jetstream.Msg
	saves   int // states saved (state.go)
	// mu orders the claim's updates of its record (its lease renewals,
	// its pushes and saved states come from several goroutines).
	mu sync.Mutex
}

// Claimer takes runs from the queue subjects of a worker's labels.
type Claimer struct {
	f         *Fleet
	worker    string
	consumers []jetstream.Consumer
	log       *slog.Logger
}

// NewClaimer prepares a worker's claims: one durable consumer per subset
// of its labels (shared with every worker serving the same subset).
func (f *Fleet) NewClaimer(ctx context.Context, worker string, labels []string, log *slog.Logger) (*Claimer, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Claimer{f: f, worker: worker, log: log}
	for _, set := range subsets(labels) {
		subject := queueSubject(set)
		cons, err := f.queue.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
			Durable: consumerName(subject), FilterSubject: subject, AckPolicy: jetstream.AckExplicitPolicy,
			AckWait: f.lease, MaxDeliver: -1, MaxAckPending: -1,
			Description: "autarch fleet workers serving " + subject,
		})
		if err != nil {
			return nil, fmt.Errorf("fleet: the queue consumer of %s: %w", subject, err)
		}
		c.consumers = append(c.consumers, cons)
	}
	return c, nil
}

// Next waits for a run this worker may claim and claims it.
func (c *Claimer) Next(ctx context.Context) (*Claim, error) {
	wait := time.Second
	if len(c.consumers) > 1 {
		wait = 200 * time.Millisecond
	}
	for {
		for _, cons := range c.consumers {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			batch, err := cons.Fetch(1, jetstream.FetchMaxWait(wait))
			if err != nil {
				c.log.Debug("fleet: fetching from the queue", "err", err)
				time.Sleep(wait) // a node is away: the next fetch retries
				continue
			}
			for m := range batch.Messages() {
				if cl, err := c.take(ctx, m); err != nil {
					c.log.Warn("fleet: claiming a run", "err", err)
				} else if cl != nil {
					return cl, nil
				}
			}
		}
	}
}

// errBusy: the run's lease still runs; the message comes back later.
type errBusy struct{ left time.Duration }

func (e errBusy) Error() string { return fmt.Sprintf("leased for %v more", e.left) }

var errDone = errors.New("the run ended")

// take claims the run a queue message names, or settles the message: a
// run that ended is acknowledged away, a run whose lease still runs is
// handed back for later.
func (c *Claimer) take(ctx context.Context, m jetstream.Msg) (*Claim, error) {
	id := string(m.Data())
	if CheckID(id) != nil {
		m.Term()
		return nil, nil
	}
	prev := ""
	r, err := c.f.update(ctx, id, func(r *Run) error {
		prev = ""
		switch {
		case r.State.Ended():
			return errDone
		case r.State == Running && c.f.now().Before(r.Lease):
			return errBusy{r.Lease.Sub(c.f.now())}
		case r.State == Running:
			prev = r.Worker
		}
		if err := c.f.CheckBudget(ctx, r.Spec.Submitter); err != nil {
			return err
		}
		r.State, r.Worker, r.Lease, r.Reason = Running, c.worker, c.f.now().Add(c.f.lease), ""
		if prev != "" {
			r.Reason = "taken over from " + prev + " (its lease expired)"
		}
		r.Attempts++
		return nil
	})
	var busy errBusy
	var over *OverBudgetError
	switch {
	case errors.Is(err, errDone), errors.Is(err, ErrNoRun):
		m.Ack()
		return nil, nil
	case errors.As(err, &busy):
		m.NakWithDelay(busy.left)
		return nil, nil
	case errors.As(err, &over):
		c.f.holdOverBudget(ctx, id, over)
		m.NakWithDelay(c.f.budgetRecheck())
		return nil, nil
	case err != nil:
		m.NakWithDelay(time.Second)
		return nil, err
	}
	return &Claim{Run: r, TakenOver: prev, f: c.f, id: r.ID, worker: c.worker, attempt: r.Attempts, msg: m}, nil
}

// mine updates the run's record if this claim still holds it: the
// record names this worker and attempt (a takeover moved both), checked
// again by the bucket's revision on the write.
func (cl *Claim) mine(ctx context.Context, fn func(*Run)) error {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	r, err := cl.f.update(ctx, cl.id, func(r *Run) error {
		if r.Worker != cl.worker || r.Attempts != cl.attempt || r.State != Running {
			return ErrLeaseLost
		}
		fn(r)
		return nil
	})
	if err != nil {
		return err
	}
	cl.Run = r
	return nil
}

// Renew extends the lease (the queue message's and the record's); it
// reports whether a stop was asked. ErrLeaseLost: stop working on it.
func (cl *Claim) Renew(ctx context.Context) (stop bool, err error) {
	if err := cl.msg.InProgress(); err != nil {
		return false, fmt.Errorf("fleet: renewing the lease of run %s: %w", cl.id, err)
	}
	err = cl.mine(ctx, func(r *Run) { r.Lease, stop = cl.f.now().Add(cl.f.lease), r.StopAsked })
	return stop, err
}

// Record changes the run's record (its branch, its pushed commits) while
// this claim holds it.
func (cl *Claim) Record(ctx context.Context, fn func(*Run)) error { return cl.mine(ctx, fn) }

// Finish records how the run ended and takes it off the queue. A claim
// whose lease was lost gets ErrLeaseLost and changes nothing.
func (cl *Claim) Finish(ctx context.Context, state State, reason string) error {
	if err := cl.mine(ctx, func(r *Run) { r.State, r.Reason, r.Lease, r.StopAsked = state, reason, time.Time{}, false }); err != nil {
		return err
	}
	if err := cl.msg.DoubleAck(ctx); err != nil {
		return fmt.Errorf("fleet: taking run %s off the queue: %w", cl.id, err)
	}
	return nil
}

// Keep renews the claim every third of the lease until ctx ends; it
// calls lost when the lease is lost and stop when a stop is asked.
func (cl *Claim) Keep(ctx context.Context, lost func(error), stop func()) {
	Every(ctx, cl.f.lease/3, func() bool {
		asked, err := cl.Renew(ctx)
		if errors.Is(err, ErrLeaseLost) {
			lost(err)
			return false
		}
		if asked {
			stop()
		}
		return true
	})
}

// Every calls fn every d until ctx ends or fn returns false: the run
// kernel's WatchStop, with fn saying whether to go on.
func Every(ctx context.Context, d time.Duration, fn func() bool) {
	kernel.WatchStop(ctx, d, func(context.Context) bool { return !fn() }, func() {})
}
