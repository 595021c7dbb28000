package testkit

import (
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
)

// StartNATS starts a real nats-server with JetStream on a loopback port,
// shut down when the test ends, and returns its client URL.
func StartNATS(t testing.TB) string {
	t.Helper()
	return ServeNATS(t, &natsserver.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoSigs: true, NoLog: true})
}

// ServeNATS starts a nats-server with opts (a configuration of users and
// permissions, say), shut down when the test ends, and returns its
// client URL.
func ServeNATS(t testing.TB, opts *natsserver.Options) string {
	t.Helper()
	srv, err := natsserver.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server not ready")
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	return srv.ClientURL()
}
