package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/autarch-dev/autarch/agent/run"
	"github.com/nats-io/nats.go/jetstream"
)

// The buckets of the fleet's shared limits: the settings (the fleet's
// rate limit, each submitter's budget and spend) and the rate windows of
// each model endpoint (short-lived state).
const (
	limitsBucket = "autarch_fleet_limits"
	ratesBucket  = "autarch_fleet_rates"
	rateKey      = "rate"
)

// Rate is a model endpoint's rate limit, shared by every worker: requests
// and tokens per minute (0: no limit).
type Rate struct {
	RPM int `json:"rpm,omitempty"`
	TPM int `json:"tpm,omitempty"`
}

// Zero reports whether r limits nothing.
func (r Rate) Zero() bool { return r.RPM <= 0 && r.TPM <= 0 }

// Or is r with each unset limit taken from d (a worker's flags over the
// fleet's setting).
func (r Rate) Or(d Rate) Rate {
	if r.RPM <= 0 {
		r.RPM = d.RPM
	}
	if r.TPM <= 0 {
		r.TPM = d.TPM
	}
	return r
}

// String reads like "60 requests/min, 100000 tokens/min".
func (r Rate) String() string {
	var parts []string
	if r.RPM > 0 {
		parts = append(parts, fmt.Sprintf("%d requests/min", r.RPM))
	}
	if r.TPM > 0 {
		parts = append(parts, fmt.Sprintf("%d tokens/min", r.TPM))
	}
	if len(parts) == 0 {
		return "no limit"
	}
	return strings.Join(parts, ", ")
}

// openLimits creates (or finds) the buckets of the shared limits.
func (f *Fleet) openLimits(ctx context.Context) error {
	var err error
	if f.limits, err = f.bucket(ctx, "limits", jetstream.KeyValueConfig{
		Bucket: limitsBucket, Description: "autarch fleet: the rate limit of model endpoints, budgets and spend per submitter", History: 1,
	}); err != nil {
		return err
	}
	f.rates, err = f.bucket(ctx, "rates", jetstream.KeyValueConfig{
		Bucket: ratesBucket, Description: "autarch fleet: each model endpoint's next free request slot and token debt", History: 1, TTL: time.Hour,
	})
	return err
}

// SetRate records the fleet's rate limit per model endpoint (autarch
// fleet limits); a worker's --rpm/--tpm take precedence over it.
func (f *Fleet) SetRate(ctx context.Context, r Rate) error {
	data, _ := json.Marshal(r)
	if _, err := f.limits.Put(ctx, rateKey, data); err != nil {
		return fmt.Errorf("fleet: recording the rate limit: %w", err)
	}
	return nil
}

// Rate is the fleet's rate limit per model endpoint (zero when none was
// set).
func (f *Fleet) Rate(ctx context.Context) (Rate, error) {
	var r Rate
	_, err := f.readLimit(ctx, rateKey, &r)
	return r, err
}

// window is an endpoint's shared state, as a generic cell rate
// algorithm keeps it: the time of the next free request slot and the
// time at which the tokens spent so far are paid back.
type window struct {
	Next   time.Time `json:"next"`
	Tokens time.Time `json:"tokens"`
}

// EndpointKey is the rates bucket's key of a model endpoint: its host
// and its model, with what a key may not hold replaced.
func EndpointKey(host, model string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, host+"."+model)
}

// Reserve takes the next request slot of the endpoint under lim and
// returns when it is: requests are spread evenly, a minute/RPM apart
// (providers enforce their per-minute limits over shorter periods too),
// and none goes while the tokens spent exceed a minute's TPM. The slot
// is the caller's even if it does not wait for it.
func (f *Fleet) Reserve(ctx context.Context, key string, lim Rate) (time.Time, error) {
	var at time.Time
	err := f.changeWindow(ctx, key, func(w *window, now time.Time) {
		at = now
		if lim.RPM > 0 {
			at = later(now, w.Next)
			w.Next = at.Add(time.Minute / time.Duration(lim.RPM))
		}
		if lim.TPM > 0 {
			at = later(at, w.Tokens.Add(-time.Minute))
		}
	})
	return at, err
}

// Spend adds a request's tokens to the endpoint's debt under lim.
func (f *Fleet) Spend(ctx context.Context, key string, lim Rate, tokens int) error {
	if lim.TPM <= 0 || tokens <= 0 {
		return nil
	}
	return f.changeWindow(ctx, key, func(w *window, now time.Time) {
		w.Tokens = later(now, w.Tokens).Add(time.Duration(tokens) * time.Minute / time.Duration(lim.TPM))
	})
}

// WaitRate waits (until ctx ends at most) for the endpoint's next request
// slot under lim; wait, when not nil, hears of a wait before it starts.
func (f *Fleet) WaitRate(ctx context.Context, key string, lim Rate, wait func(time.Duration)) error {
	if lim.Zero() {
		return nil
	}
	at, err := f.Reserve(ctx, key, lim)
	if err != nil {
		return err
	}
	d := at.Sub(f.now())
	if d <= 0 {
		return nil
	}
	if wait != nil {
		wait(d)
	}
	return run.Sleep(ctx, d)
}

// changeWindow changes an endpoint's window with fn.
func (f *Fleet) changeWindow(ctx context.Context, key string, fn func(*window, time.Time)) error {
	return changeRecord(ctx, f.rates, key, "the rate window of "+key, f.now, fn)
}

// changeRecord changes the JSON record of key in kv with fn under a
// revision check, again with the fresh record when another worker wrote
// first. A missing record (or one that is not valid) starts from zero.
func changeRecord[T any](ctx context.Context, kv jetstream.KeyValue, key, what string, now func() time.Time, fn func(*T, time.Time)) error {
	for range 100 {
		var v T
		var rev uint64
		e, err := kv.Get(ctx, key)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			return fmt.Errorf("fleet: %s: %w", what, err)
		default:
			rev = e.Revision()
			if json.Unmarshal(e.Value(), &v) != nil {
				var zero T
				v = zero
			}
		}
		fn(&v, now())
		data, _ := json.Marshal(v)
		if rev == 0 {
			_, err = kv.Create(ctx, key, data)
		} else {
			_, err = kv.Update(ctx, key, data, rev)
		}
		if err == nil {
			return nil
		}
		if !isWrongRevision(err) && !errors.Is(err, jetstream.ErrKeyExists) {
			return fmt.Errorf("fleet: %s: %w", what, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return fmt.Errorf("fleet: %s changes too often to update; try again", what)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
