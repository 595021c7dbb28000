package swarm

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Options configure a swarm's use of its NATS resources.
type Options struct {
	// Limits are the tools' rate limits (zero: DefaultLimits).
	Limits Limits
	// Replicas of the streams and buckets (0: 1; a cluster may want 3).
	Replicas int
	// FetchWait is how long the queue's consumer holds a fetched message
	// before the lease takes over (0: 30s): a process that dies between
	// fetching and leasing gives the item back after it.
	FetchWait time.Duration
	// Now is the clock (nil: time.Now); leases and rate windows use it.
	Now func() time.Time
}

// Swarm is one swarm's shared context, queue, proposals and rate limits.
// It is safe for concurrent use; several processes may open the same
// swarm at once.
type Swarm struct {
	name   string
	js     jetstream.JetStream
	conn   *Conn
	kv     jetstream.KeyValue // shared context
	items  jetstream.KeyValue // queue items' state
	rate   jetstream.KeyValue // rate-limit buckets
	queue  jetstream.Stream
	work   jetstream.Consumer
	props  jetstream.Stream
	limits Limits
	now    func() time.Time
}

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// ValidName checks a swarm name (letters, digits, _ and -, at most 64).
func ValidName(name string) error {
	if !nameRE().MatchString(name) {
		return fmt.Errorf("swarm name %q: use 1 to 64 letters, digits, _ or -", name)
	}
	return nil
}

// Open opens (creating when missing) the swarm called name on c.
func Open(ctx context.Context, c *Conn, name string, opts Options) (*Swarm, error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	s := &Swarm{name: name, js: c.js, conn: c, limits: opts.Limits.withDefaults(), now: opts.Now}
	if s.now == nil {
		s.now = time.Now
	}
	replicas := max(opts.Replicas, 1)
	fetchWait := opts.FetchWait
	if fetchWait <= 0 {
		fetchWait = 30 * time.Second
	}
	var err error
	bucket := func(suffix, desc string, history uint8) (jetstream.KeyValue, error) {
		kv, err := EnsureKeyValue(ctx, c.js, jetstream.KeyValueConfig{
			Bucket: "swarm_" + name + "_" + suffix, Description: desc, History: history,
			Storage: jetstream.FileStorage, Replicas: replicas,
		})
		if err != nil {
			return nil, fmt.Errorf("swarm %s: bucket %s: %w", name, suffix, err)
		}
		return kv, nil
	}
	if s.kv, err = bucket("ctx", "autarch swarm "+name+": shared context", 5); err != nil {
		return nil, err
	}
	if s.items, err = bucket("items", "autarch swarm "+name+": queue items", 1); err != nil {
		return nil, err
	}
	if s.rate, err = bucket("rate", "autarch swarm "+name+": rate-limit buckets", 1); err != nil {
		return nil, err
	}
	s.queue, err = EnsureStream(ctx, c.js, jetstream.StreamConfig{
		Name: s.queueStream(), Subjects: []string{s.queueSubject("*")}, Retention: jetstream.WorkQueuePolicy,
		Storage: jetstream.FileStorage, Replicas: replicas, Duplicates: 2 * time.Minute,
		Description: "autarch swarm " + name + ": work queue",
	})
	if err != nil {
		return nil, fmt.Errorf("swarm %s: queue stream: %w", name, err)
	}
	s.work, err = s.queue.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable: "work", AckPolicy: jetstream.AckExplicitPolicy, AckWait: fetchWait, MaxDeliver: -1,
		MaxAckPending: -1, Description: "autarch swarm " + name + ": agents' coord_next",
	})
	if err != nil {
		return nil, fmt.Errorf("swarm %s: queue consumer: %w", name, err)
	}
	s.props, err = EnsureStream(ctx, c.js, jetstream.StreamConfig{
		Name: "swarm_" + name + "_proposals", Subjects: []string{s.propSubject("*"), s.decisionSubject("*")},
		Storage: jetstream.FileStorage, Replicas: replicas,
		Description: "autarch swarm " + name + ": fs_write proposals and the arbiter's decisions",
	})
	if err != nil {
		return nil, fmt.Errorf("swarm %s: proposals stream: %w", name, err)
	}
	return s, nil
}

// Name is the swarm's name.
func (s *Swarm) Name() string { return s.name }

// Delete removes the swarm's streams and buckets (its whole state).
func (s *Swarm) Delete(ctx context.Context) error {
	var errs []error
	for _, b := range []string{"ctx", "items", "rate"} {
		if err := s.js.DeleteKeyValue(ctx, "swarm_"+s.name+"_"+b); err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
			errs = append(errs, err)
		}
	}
	for _, st := range []string{s.queueStream(), "swarm_" + s.name + "_proposals"} {
		if err := s.js.DeleteStream(ctx, st); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (s *Swarm) queueStream() string              { return "swarm_" + s.name + "_queue" }
func (s *Swarm) queueSubject(id string) string    { return "swarm." + s.name + ".queue." + id }
func (s *Swarm) propSubject(id string) string     { return "swarm." + s.name + ".proposal." + id }
func (s *Swarm) decisionSubject(id string) string { return "swarm." + s.name + ".decision." + id }
