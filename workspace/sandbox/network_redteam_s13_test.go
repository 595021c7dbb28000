package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
)

// TestNetworkCommandReachesNoHostAbstractSocket (red team s13, 02): a
// command with the network (preflight, by default: the dependency
// installs that run a package's scripts) shares the host's network
// namespace, and with it the host's abstract unix sockets, which no
// mount, mask or file permission guards: X11's @/tmp/.X11-unix/X0
// (where SI:localuser lets any process of the user type into the
// user's terminals), @/containerd-shim…, an IDE's helper. The test
// listens on one on the host and asks whether a command connects.
func TestNetworkCommandReachesNoHostAbstractSocket(t *testing.T) {
	f := newFixture(t)
	name := fmt.Sprintf("@autarch-redteam-s13-%d", os.Getpid())
	ln, err := net.Listen("unix", name)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("host says hello\n"))
			c.Close()
		}
	}()
	connect := fmt.Sprintf(`/usr/bin/python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect("\0%s"); print(s.recv(64).decode())'`, strings.TrimPrefix(name, "@"))
	if r := f.sb.Report(context.Background()); landlockScopes() != 0 && !strings.Contains(r, "abstract sockets and signals: scoped") {
		t.Errorf("doctor does not say commands are scoped:\n%s", r)
	}
	for _, network := range []bool{false, true} {
		t.Run(fmt.Sprintf("network=%v", network), func(t *testing.T) {
			res := f.run(t, Spec{Command: connect, Network: network})
			if strings.Contains(res.Stdout, "host says hello") {
				t.Errorf("the command reached the host's abstract socket %s", name)
			}
		})
	}
}
