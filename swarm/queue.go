package swarm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// Queue defaults and bounds.
const (
	DefaultLease = 180 * time.Second
	MaxLease     = 24 * time.Hour
)

// Item statuses.
const (
	StatusQueued  = "queued"
	StatusClaimed = "claimed"
	StatusDone    = "done"
)

// Item is a leased work item (coord_next's item, coord_claim's answer).
type Item struct {
	ID         string          `json:"id"`
	Kind       string          `json:"kind"`
	Payload    json.RawMessage `json:"payload,omitempty"`
	LeaseUntil time.Time       `json:"lease_until"`
	ClaimedBy  string          `json:"claimed_by"`
}

// record is an item's state in the items bucket (key = id); every
// change is a compare-and-set on the key's revision.
type record struct {
	ID         string          `json:"id"`
	Kind       string          `json:"kind"`
	Payload    json.RawMessage `json:"payload"`
	Seq        uint64          `json:"seq"` // the message's stream sequence
	Status     string          `json:"status"`
	ClaimedBy  string          `json:"claimed_by,omitempty"`
	LeaseUntil time.Time       `json:"lease_until,omitzero"`
	Reply      string          `json:"reply,omitempty"` // ack subject of the latest delivery
	Deliveries uint64          `json:"deliveries,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	DoneBy     string          `json:"done_by,omitempty"`
	Enqueued   time.Time       `json:"enqueued"`
}

// available reports whether the item may be leased at now.
func (r record) available(now time.Time) bool {
	return r.Status == StatusQueued || r.Status == StatusClaimed && !now.Before(r.LeaseUntil)
}

func (r record) item() Item {
	return Item{ID: r.ID, Kind: r.Kind, Payload: r.Payload, LeaseUntil: r.LeaseUntil, ClaimedBy: r.ClaimedBy}
}

// message is a queue message's body.
type message struct {
	ID      string          `json:"id"`
	Kind    string          `json:"kind"`
	Payload json.RawMessage `json:"payload"`
}

// Enqueue adds a work item; payload must be a JSON object (nil: {}).
func (s *Swarm) Enqueue(ctx context.Context, kind string, payload json.RawMessage) (Item, error) {
	kind = strings.TrimSpace(kind)
	if kind == "" {
		return Item{}, badInput("kind is empty: name the kind of work, e.g. scan_docs")
	}
	if len(payload) == 0 || string(payload) == "null" {
		payload = json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(payload, &obj) != nil {
		return Item{}, badInput("payload must be a JSON object, e.g. {\"dir\": \"docs\"}")
	}
	id := nuid.Next()
	body, _ := json.Marshal(message{ID: id, Kind: kind, Payload: payload})
	ack, err := s.js.PublishMsg(ctx, &nats.Msg{Subject: s.queueSubject(id), Data: body}, jetstream.WithMsgID(id))
	if err != nil {
		return Item{}, fmt.Errorf("coord_enqueue: %w", err)
	}
	rec := record{ID: id, Kind: kind, Payload: payload, Seq: ack.Sequence, Status: StatusQueued, Enqueued: s.now().UTC()}
	if _, err := s.items.Create(ctx, id, mustJSON(rec)); err != nil && !isConflict(err) {
		return Item{}, fmt.Errorf("coord_enqueue: recording %s: %w", id, err)
	}
	return Item{ID: id, Kind: kind, Payload: payload}, nil
}

// load reads an item's record and revision (ok false: no such item).
func (s *Swarm) load(ctx context.Context, id string) (record, uint64, bool, error) {
	e, err := s.items.Get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return record{}, 0, false, nil
	}
	if err != nil {
		return record{}, 0, false, fmt.Errorf("reading item %s: %w", id, err)
	}
	var r record
	if err := json.Unmarshal(e.Value(), &r); err != nil {
		return record{}, 0, false, fmt.Errorf("item %s: corrupt record: %w", id, err)
	}
	return r, e.Revision(), true, nil
}

// Next leases the first available item (FIFO) to agent for lease (0:
// DefaultLease); nil when none is available.
func (s *Swarm) Next(ctx context.Context, agent string, lease time.Duration) (*Item, error) {
	lease, err := checkLease(lease, DefaultLease)
	if err != nil {
		return nil, err
	}
	for range 10000 { // each round settles one message: bounded by the queue
		batch, err := s.work.FetchNoWait(1)
		if err != nil {
			return nil, fmt.Errorf("coord_next: %w", err)
		}
		var msg jetstream.Msg
		for m := range batch.Messages() {
			msg = m
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
			return nil, fmt.Errorf("coord_next: %w", err)
		}
		if msg == nil {
			if msg, err = s.undelivered(ctx); err != nil || msg == nil {
				return nil, err
			}
		}
		it, err := s.settle(ctx, msg, agent, lease)
		if err != nil || it != nil {
			return it, err
		}
	}
	return nil, errors.New("coord_next: no item could be leased after 10000 deliveries")
}

// undelivered waits for a message the stream holds but the consumer has
// not delivered yet (a no-wait fetch right after a publish may miss it);
// nil when there is none.
func (s *Swarm) undelivered(ctx context.Context) (jetstream.Msg, error) {
	// The consumer's own count of undelivered messages lags the stream
	// for a moment after a publish; the stream's count does not: what the
	// stream holds beyond the consumer's delivered-unacked messages is
	// undelivered.
	si, err := s.queue.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("coord_next: %w", err)
	}
	ci, err := s.work.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("coord_next: %w", err)
	}
	if si.State.Msgs <= uint64(ci.NumAckPending) {
		return nil, nil
	}
	batch, err := s.work.Fetch(1, jetstream.FetchMaxWait(time.Second))
	if err != nil {
		return nil, fmt.Errorf("coord_next: %w", err)
	}
	var msg jetstream.Msg
	for m := range batch.Messages() {
		msg = m
	}
	if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && !errors.Is(err, nats.ErrTimeout) {
		return nil, fmt.Errorf("coord_next: %w", err)
	}
	return msg, nil
}

// settle decides a delivered message: lease it to agent when available,
// put it back until its holder's lease ends when leased, drop it when done.
func (s *Swarm) settle(ctx context.Context, msg jetstream.Msg, agent string, lease time.Duration) (*Item, error) {
	meta, err := msg.Metadata()
	if err != nil {
		return nil, fmt.Errorf("coord_next: %w", err)
	}
	id := strings.TrimPrefix(msg.Subject(), s.queueSubject(""))
	for {
		rec, rev, ok, err := s.load(ctx, id)
		if err != nil {
			return nil, err
		}
		if !ok { // enqueued by a process that died before recording it
			var m message
			if json.Unmarshal(msg.Data(), &m) != nil {
				_ = msg.Term()
				return nil, nil
			}
			rec = record{ID: id, Kind: m.Kind, Payload: m.Payload, Seq: meta.Sequence.Stream, Status: StatusQueued, Enqueued: meta.Timestamp.UTC()}
		}
		now := s.now()
		switch {
		case rec.Status == StatusDone:
			_ = msg.Ack()
			return nil, nil
		case !rec.available(now):
			if ok && rec.Reply != msg.Reply() { // its holder completes it by this delivery
				rec.Reply = msg.Reply()
				if _, err := s.items.Update(ctx, id, mustJSON(rec), rev); isConflict(err) {
					continue
				} else if err != nil {
					return nil, fmt.Errorf("coord_next: %w", err)
				}
			}
			_ = msg.NakWithDelay(rec.LeaseUntil.Sub(now))
			return nil, nil
		}
		rec.Status, rec.ClaimedBy, rec.LeaseUntil = StatusClaimed, agent, now.Add(lease).UTC()
		rec.Reply, rec.Deliveries = msg.Reply(), meta.NumDelivered
		if ok {
			_, err = s.items.Update(ctx, id, mustJSON(rec), rev)
		} else {
			_, err = s.items.Create(ctx, id, mustJSON(rec))
		}
		if isConflict(err) {
			continue // another agent changed it first: look again
		}
		if err != nil {
			return nil, fmt.Errorf("coord_next: leasing %s: %w", id, err)
		}
		// The message comes back when the lease ends (a per-message ack
		// wait); completing it removes it first.
		if err := msg.NakWithDelay(lease); err != nil {
			return nil, fmt.Errorf("coord_next: %w", err)
		}
		it := rec.item()
		return &it, nil
	}
}

// Claim leases the item id to agent (an agent renews its own lease).
func (s *Swarm) Claim(ctx context.Context, agent, id string, lease time.Duration) (Item, error) {
	lease, err := checkLease(lease, DefaultLease)
	if err != nil {
		return Item{}, err
	}
	for {
		rec, rev, err := s.mustLoad(ctx, id)
		if err != nil {
			return Item{}, err
		}
		now := s.now()
		switch {
		case rec.Status == StatusDone:
			return Item{}, &Refusal{Err: ErrAlreadyDone, Code: 409, ID: id, Message: "item " + id + " is already done (by " + rec.DoneBy + "): take another with coord_next"}
		case !rec.available(now) && rec.ClaimedBy != agent:
			until := rec.LeaseUntil
			return Item{}, &Refusal{Err: ErrClaimed, Code: 409, ID: id, ClaimedBy: rec.ClaimedBy, LeaseUntil: &until,
				Message: fmt.Sprintf("item %s is leased to %s until %s: take another with coord_next", id, rec.ClaimedBy, until.Format(time.RFC3339))}
		}
		rec.Status, rec.ClaimedBy, rec.LeaseUntil = StatusClaimed, agent, now.Add(lease).UTC()
		if _, err := s.items.Update(ctx, id, mustJSON(rec), rev); isConflict(err) {
			continue
		} else if err != nil {
			return Item{}, fmt.Errorf("coord_claim %s: %w", id, err)
		}
		s.delay(rec, lease)
		return rec.item(), nil
	}
}

// Complete marks the item done with result; only its holder, within its
// lease, may (a late holder is refused: the item was given back).
func (s *Swarm) Complete(ctx context.Context, agent, id string, result json.RawMessage) error {
	if len(result) == 0 {
		result = json.RawMessage("null")
	}
	if !json.Valid(result) {
		return badInput("result is not valid JSON")
	}
	for {
		rec, rev, err := s.held(ctx, agent, id)
		if err != nil {
			return err
		}
		rec.Status, rec.Result, rec.DoneBy = StatusDone, result, agent
		if _, err := s.items.Update(ctx, id, mustJSON(rec), rev); isConflict(err) {
			continue
		} else if err != nil {
			return fmt.Errorf("coord_complete %s: %w", id, err)
		}
		s.remove(ctx, rec)
		return nil
	}
}

// remove takes a done item's message out of the stream (tidying: a
// redelivery of it is dropped by Next). A delivered message is acked on
// its last delivery's subject (the work queue then drops it); one never
// delivered (leased by coord_claim) is deleted. Deleting a delivered one
// instead would leave the consumer counting one message too few.
func (s *Swarm) remove(ctx context.Context, rec record) {
	if rec.Reply != "" {
		actx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if _, err := s.conn.nc.RequestWithContext(actx, rec.Reply, []byte("+ACK")); err == nil {
			return
		}
	}
	_ = s.queue.DeleteMsg(ctx, rec.Seq)
}

// Extend lengthens agent's live lease on id by extend; the new end.
func (s *Swarm) Extend(ctx context.Context, agent, id string, extend time.Duration) (time.Time, error) {
	if extend <= 0 || extend > MaxLease {
		return time.Time{}, badInput("extend_sec must be between 1 and %d", int(MaxLease.Seconds()))
	}
	for {
		rec, rev, err := s.held(ctx, agent, id)
		if err != nil {
			return time.Time{}, err
		}
		rec.LeaseUntil = rec.LeaseUntil.Add(extend)
		if d := rec.LeaseUntil.Sub(s.now()); d > MaxLease {
			return time.Time{}, badInput("the lease would end in %s, more than the %s a lease may last", d.Round(time.Second), MaxLease)
		}
		if _, err := s.items.Update(ctx, id, mustJSON(rec), rev); isConflict(err) {
			continue
		} else if err != nil {
			return time.Time{}, fmt.Errorf("coord_extend %s: %w", id, err)
		}
		s.delay(rec, rec.LeaseUntil.Sub(s.now()))
		return rec.LeaseUntil, nil
	}
}

// delay moves the redelivery of the item's last delivered message to the
// end of the lease (a NAK with delay on its ack subject, from any
// process). Best effort: an early redelivery is put back by Next.
func (s *Swarm) delay(rec record, d time.Duration) {
	if rec.Reply != "" {
		_ = s.conn.nc.Publish(rec.Reply, fmt.Appendf(nil, `-NAK {"delay": %d}`, d.Nanoseconds()))
	}
}

// mustLoad loads an existing item (a Refusal when there is none).
func (s *Swarm) mustLoad(ctx context.Context, id string) (record, uint64, error) {
	if strings.TrimSpace(id) == "" || ValidKey(id) != "" {
		return record{}, 0, badInput("id %q is not an item id: use the id coord_enqueue or coord_next returned", id)
	}
	rec, rev, ok, err := s.load(ctx, id)
	if err != nil {
		return record{}, 0, err
	}
	if !ok {
		return record{}, 0, &Refusal{Err: ErrNotFound, Code: 404, ID: id, Message: "no item " + id + " in the queue: coord_status shows the front"}
	}
	return rec, rev, nil
}

// held loads id when agent holds a live lease on it, else refuses.
func (s *Swarm) held(ctx context.Context, agent, id string) (record, uint64, error) {
	rec, rev, err := s.mustLoad(ctx, id)
	if err != nil {
		return rec, rev, err
	}
	until := rec.LeaseUntil
	switch {
	case rec.Status == StatusDone:
		return rec, rev, &Refusal{Err: ErrAlreadyDone, Code: 409, ID: id, Message: "item " + id + " is already done (by " + rec.DoneBy + ")"}
	case rec.Status == StatusQueued:
		return rec, rev, &Refusal{Err: ErrNotClaimed, Code: 409, ID: id, Message: "item " + id + " is not leased to you: claim it first with coord_claim"}
	case rec.ClaimedBy != agent:
		return rec, rev, &Refusal{Err: ErrNotHolder, Code: 409, ID: id, ClaimedBy: rec.ClaimedBy, LeaseUntil: &until,
			Message: fmt.Sprintf("item %s is leased to %s until %s (your lease, if you had one, expired and the item was given back): take another with coord_next", id, rec.ClaimedBy, until.Format(time.RFC3339))}
	case !s.now().Before(rec.LeaseUntil):
		return rec, rev, &Refusal{Err: ErrLeaseExpired, Code: 409, ID: id, LeaseUntil: &until,
			Message: fmt.Sprintf("your lease on item %s expired at %s and the item is available again: claim it again with coord_claim (or extend leases before they end)", id, until.Format(time.RFC3339))}
	}
	return rec, rev, nil
}

func checkLease(d, def time.Duration) (time.Duration, error) {
	if d == 0 {
		return def, nil
	}
	if d < 0 || d > MaxLease {
		return 0, badInput("lease_sec must be between 1 and %d", int(MaxLease.Seconds()))
	}
	return d, nil
}

// Status is coord_status's answer.
type Status struct {
	Length int    `json:"length"`
	Front  *Front `json:"front"`
	Counts Counts `json:"counts"`
	Phase  int64  `json:"phase"`
}

// Front is the first available item.
type Front struct {
	ID      string          `json:"id"`
	Kind    string          `json:"kind"`
	Payload json.RawMessage `json:"payload"`
	Status  string          `json:"status"`
}

// Counts are the items by status (a claim whose lease ended counts as queued).
type Counts struct {
	Queued  int `json:"queued"`
	Claimed int `json:"claimed"`
	Done    int `json:"done"`
}

// Status reads every item's record: counts, the front (the available
// item first in the stream's order), length (items not done) and phase.
func (s *Swarm) Status(ctx context.Context) (Status, error) {
	var st Status
	recs, err := s.records(ctx)
	if err != nil {
		return st, err
	}
	now := s.now()
	var front *record
	for i, r := range recs {
		switch {
		case r.Status == StatusDone:
			st.Counts.Done++
		case r.available(now):
			st.Counts.Queued++
			if front == nil || r.Seq < front.Seq {
				front = &recs[i]
			}
		default:
			st.Counts.Claimed++
		}
	}
	st.Length = st.Counts.Queued + st.Counts.Claimed
	if front != nil {
		st.Front = &Front{ID: front.ID, Kind: front.Kind, Payload: front.Payload, Status: StatusQueued}
	}
	if st.Phase, err = s.Phase(ctx); err != nil {
		return st, err
	}
	return st, nil
}

// Items lists every item's state (for the swarm view).
func (s *Swarm) Items(ctx context.Context) ([]ItemState, error) {
	recs, err := s.records(ctx)
	if err != nil {
		return nil, err
	}
	now := s.now()
	out := make([]ItemState, 0, len(recs))
	for _, r := range recs {
		st := r.Status
		if st == StatusClaimed && r.available(now) {
			st = StatusQueued
		}
		out = append(out, ItemState{Item: r.item(), Status: st, Result: r.Result, DoneBy: r.DoneBy, Seq: r.Seq})
	}
	return out, nil
}

// ItemState is an item with its status (Items).
type ItemState struct {
	Item
	Status string          `json:"status"`
	Result json.RawMessage `json:"result,omitempty"`
	DoneBy string          `json:"done_by,omitempty"`
	Seq    uint64          `json:"seq"`
}

// records reads the latest record of every item, in stream order.
func (s *Swarm) records(ctx context.Context) ([]record, error) {
	w, err := s.items.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("coord_status: %w", err)
	}
	defer w.Stop()
	var recs []record
	for {
		select {
		case e := <-w.Updates():
			if e == nil {
				slices.SortFunc(recs, func(a, b record) int { return cmp.Compare(a.Seq, b.Seq) })
				return recs, nil
			}
			var r record
			if json.Unmarshal(e.Value(), &r) == nil {
				recs = append(recs, r)
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only our own records are encoded
	}
	return b
}
