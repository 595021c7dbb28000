package fleet

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/autarch-dev/autarch/swarm"
)

// Connect reaches the fleet through swarm's connection (an external NATS
// at opts.URL, or the project's embedded server under opts.StateDir) and
// opens its streams and buckets; the returned func closes the connection.
// Every submitter (autarch submit, the editor's "Run in Background") and
// worker connects this way.
func Connect(ctx context.Context, conn ConnOptions, opts Options) (*Fleet, func(), error) {
	c, err := swarm.Connect(ctx, conn)
	if err != nil {
		return nil, nil, err
	}
	f, err := Open(ctx, c.NATS(), c.JetStream(), opts)
	if err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("%w (is JetStream enabled on %s?)", err, c.URL())
	}
	return f, func() { c.Close() }, nil
}

// Submitter names who submits from this process, for the fleet's budget
// per submitter ($USER, else "unknown").
func Submitter() string {
	if u := strings.TrimSpace(os.Getenv("USER")); u != "" {
		return u
	}
	return "unknown"
}

// ConnOptions say which NATS the fleet is on (swarm's connection options).
type ConnOptions = swarm.ConnOptions
