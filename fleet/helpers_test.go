package fleet

import (
	"context"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// submit submits spec to f, failing the test if it cannot.
func submit(t testing.TB, f *Fleet, spec Spec) Run {
	t.Helper()
	r, err := f.Submit(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// newClaimer is f's claimer for worker with labels, failing the test if
// it cannot.
func newClaimer(t testing.TB, f *Fleet, worker string, labels ...string) *Claimer {
	t.Helper()
	c, err := f.NewClaimer(context.Background(), worker, labels, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// claimNext claims the next run on f as worker, failing the test unless
// one is claimed within 10 s.
func claimNext(t testing.TB, f *Fleet, worker string) *Claim {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, err := newClaimer(t, f, worker).Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// openFleet opens the fleet at url on its own connection.
func openFleet(t testing.TB, url string, lease time.Duration) *Fleet {
	t.Helper()
	nc, js := testkit.ConnectJetStream(t, url)
	f, err := Open(context.Background(), nc, js, Options{Lease: lease})
	if err != nil {
		t.Fatal(err)
	}
	return f
}
