package fleet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/autarch-dev/autarch/swarm"
)

// A run's durable state (its workflow store: conversation, cards, plan,
// pulse statuses) lives in an object store bucket, not on its worker's
// disk: a worker saves it at each checkpoint and card, and a takeover
// resumes from it. Each save is a new object, named by the run, the
// attempt and a sequence number, never overwritten; the run's record
// points at the current one (StateRef), and that pointer moves only by
// the record's revision check of the claim that holds the lease. A dead
// worker's late save therefore changes nothing a takeover reads: its
// object is dropped and its pointer update refused (ErrLeaseLost).
const stateBucket = "autarch_fleet_state"

// MaxState bounds a run's saved state: a takeover refuses a bigger one.
const MaxState = 1 << 30

// StateRef is where a run's last saved state is, in the run's record.
type StateRef struct {
	// Object is the object's name in the state bucket.
	Object string `json:"object"`
	// Digest is the SHA-256 (hex) of its bytes; Size their count.
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
	// Attempt is the claim that saved it.
	Attempt int `json:"attempt"`
	// Commits is how many of the run's pushed commits (Run.Commits) it
	// knows: they were pushed before it was saved.
	Commits int       `json:"commits"`
	Saved   time.Time `json:"saved"`
}

// ErrStateInvalid: the saved state is not what its record says (size,
// digest): it is not used.
var ErrStateInvalid = errors.New("fleet: the run's saved state does not match its record")

// stateStore finds (or creates) the state bucket.
func (f *Fleet) stateStore(ctx context.Context) (jetstream.ObjectStore, error) {
	obs, err := f.js.ObjectStore(ctx, stateBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		obs, err = swarm.EnsureObjectStore(ctx, f.js, jetstream.ObjectStoreConfig{
			Bucket: stateBucket, Description: "autarch fleet: each run's durable state (its workflow store), saved at checkpoints",
			Storage: jetstream.FileStorage, Replicas: f.replicas,
		})
	}
	if err != nil {
		return nil, fmt.Errorf("fleet: the state bucket: %w", err)
	}
	return obs, nil
}

// SaveState stores the file as the run's durable state and points the
// run's record at it, if this claim still holds the run. commits is how
// many of the run's commits were pushed before the file was taken. A
// claim whose lease was lost gets ErrLeaseLost and the run keeps the
// state the holder of its lease saved.
func (cl *Claim) SaveState(ctx context.Context, file string, commits int) error {
	if err := cl.mine(ctx, func(*Run) {}); err != nil {
		return err // refused before anything is stored
	}
	obs, err := cl.f.stateStore(ctx)
	if err != nil {
		return err
	}
	fh, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("fleet: saving the state of run %s: %w", cl.id, err)
	}
	defer fh.Close()
	h := sha256.New()
	cl.saves++
	name := fmt.Sprintf("%s.%d.%d", cl.id, cl.attempt, cl.saves)
	info, err := obs.Put(ctx, jetstream.ObjectMeta{Name: name, Description: "run " + cl.id + " state"}, io.TeeReader(fh, h))
	if err != nil {
		return fmt.Errorf("fleet: saving the state of run %s: %w", cl.id, err)
	}
	ref := &StateRef{Object: name, Digest: hex.EncodeToString(h.Sum(nil)), Size: int64(info.Size), Attempt: cl.attempt,
		Commits: commits, Saved: cl.f.now()}
	var old *StateRef
	err = cl.mine(ctx, func(r *Run) { old, r.Saved = r.Saved, ref })
	if err != nil {
		obs.Delete(context.WithoutCancel(ctx), name) // never pointed at
		return err
	}
	if old != nil && old.Object != name {
		obs.Delete(ctx, old.Object) // superseded; a failure leaves garbage only
	}
	return nil
}

// FetchState writes the state the run's record points at to file; false
// when the run has none saved. The state is checked against the record
// (size, digest); what it holds is for the caller to validate.
func (f *Fleet) FetchState(ctx context.Context, r Run, file string) (bool, error) {
	ref := r.Saved
	if ref == nil {
		return false, nil
	}
	if ref.Size < 0 || ref.Size > MaxState {
		return false, fmt.Errorf("%w: %d bytes (at most %d)", ErrStateInvalid, ref.Size, MaxState)
	}
	obs, err := f.stateStore(ctx)
	if err != nil {
		return false, err
	}
	res, err := obs.Get(ctx, ref.Object)
	if err != nil {
		return false, fmt.Errorf("fleet: fetching the state of run %s: %w", r.ID, err)
	}
	defer res.Close()
	out, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return false, fmt.Errorf("fleet: fetching the state of run %s: %w", r.ID, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(res, ref.Size+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("fleet: fetching the state of run %s: %w", r.ID, err)
	}
	if n != ref.Size || hex.EncodeToString(h.Sum(nil)) != ref.Digest {
		return false, fmt.Errorf("%w: object %s", ErrStateInvalid, ref.Object)
	}
	return true, nil
}

// DropState deletes the run's saved state (the run completed).
func (f *Fleet) DropState(ctx context.Context, r Run) error {
	if r.Saved == nil {
		return nil
	}
	obs, err := f.stateStore(ctx)
	if err != nil {
		return err
	}
	if err := obs.Delete(ctx, r.Saved.Object); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
		return fmt.Errorf("fleet: dropping the state of run %s: %w", r.ID, err)
	}
	return nil
}

// Current is the run's record as this claim last wrote it.
func (cl *Claim) Current() Run {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.Run
}
