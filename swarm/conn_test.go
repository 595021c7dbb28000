package swarm

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestEmbeddedServerGuarded: the server listens on no port at all (a
// TCP port on loopback is reachable from every sandboxed command given
// the network); other processes reach it through an owner-only unix
// socket in the state directory, and only with the project's generated
// credentials, kept 0600; looser or broken credentials are refused with
// what to do.
func TestEmbeddedServerGuarded(t *testing.T) {
	dir := t.TempDir()
	probe, err := net.Listen("tcp", "127.0.0.1:0") // the check sees a listener
	if err != nil {
		t.Fatal(err)
	}
	if got := tcpListeners(t); len(got) != 1 {
		t.Fatalf("listeners with one open: %v", got)
	}
	probe.Close()
	before := tcpListeners(t)
	c, _ := open(t, dir, Options{})
	authPath := filepath.Join(dir, natsDir, authFile)
	if fi, err := os.Stat(authPath); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("credentials: %v %v", fi.Mode(), err)
	}
	if after := tcpListeners(t); len(after) > len(before) {
		t.Fatalf("the embedded NATS listens on TCP: %v (before: %v)", after, before)
	}
	var a address
	data, _ := os.ReadFile(filepath.Join(dir, natsDir, addrFile))
	if json.Unmarshal(data, &a); a.Socket != sockFile || a.PID != os.Getpid() {
		t.Fatalf("recorded address: %s", data)
	}
	sock := filepath.Join(dir, natsDir, sockFile)
	if fi, err := os.Stat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket: %v %v", fi, err)
	}
	viaSocket := func() nats.Option {
		return nats.SetCustomDialer(sockDialer(sock))
	}
	if nc, err := nats.Connect("nats://127.0.0.1", viaSocket(), nats.NoReconnect()); err == nil {
		nc.Close()
		t.Fatal("a client without the credentials was let in")
	}
	if nc, err := nats.Connect("nats://127.0.0.1", viaSocket(), nats.NoReconnect(), nats.UserInfo("autarch", "guess")); err == nil {
		nc.Close()
		t.Fatal("a wrong password was let in")
	}
	var creds auth
	if data, err := os.ReadFile(authPath); err != nil || json.Unmarshal(data, &creds) != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect("nats://127.0.0.1", viaSocket(), nats.NoReconnect(), nats.UserInfo(creds.User, creds.Password))
	if err != nil {
		t.Fatalf("the project's credentials through the socket: %v", err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	nc.Close()
	c.Close()
	if _, err := os.Stat(filepath.Join(dir, natsDir, addrFile)); err == nil {
		t.Error("the address of a stopped server is still recorded")
	}
	if _, err := os.Stat(sock); err == nil {
		t.Error("the socket of a stopped server is still there")
	}

	os.Chmod(authPath, 0o644)
	if _, err := Connect(context.Background(), ConnOptions{StateDir: dir}); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("readable credentials: %v", err)
	}
	os.WriteFile(authPath, []byte("{"), 0o600)
	os.Chmod(authPath, 0o600)
	if _, err := Connect(context.Background(), ConnOptions{StateDir: dir}); err == nil || !strings.Contains(err.Error(), "delete it") {
		t.Fatalf("broken credentials: %v", err)
	}
	if _, err := Connect(context.Background(), ConnOptions{}); err == nil || !strings.Contains(err.Error(), "AUTARCH_NATS_URL") {
		t.Fatalf("no state dir: %v", err)
	}
}

// TestStaleAddress: an address left by a host that died (its lock
// released) is not dialled; the next user hosts.
func TestStaleAddress(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, natsDir), 0o700)
	os.WriteFile(filepath.Join(dir, natsDir, addrFile), []byte(`{"socket":"nats.sock","pid":1}`), 0o644)
	os.WriteFile(filepath.Join(dir, natsDir, sockFile), nil, 0o600) // not even a socket
	c, _ := open(t, dir, Options{})
	if !c.Hosting() {
		t.Fatal("did not host")
	}
}

func TestOpenRefusesBadNames(t *testing.T) {
	c, _ := open(t, t.TempDir(), Options{})
	for _, name := range []string{"", "a.b", "a b", "a>", strings.Repeat("x", 65)} {
		if _, err := Open(context.Background(), c, name, Options{}); err == nil || !strings.Contains(err.Error(), "swarm name") {
			t.Errorf("Open(%q): %v", name, err)
		}
	}
	if _, err := Tools(nil, "a.b"); err == nil || !strings.Contains(err.Error(), "agent name") {
		t.Errorf("Tools with a bad agent: %v", err)
	}
}

// TestHandOver: the host closes while another user is connected; that
// user's connection starts the server itself and carries on.
func TestHandOver(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	host, hs := open(t, dir, Options{})
	peer, ps := open(t, dir, Options{})
	if _, err := hs.Put(ctx, "k", json.RawMessage(`1`), "", 0); err != nil {
		t.Fatal(err)
	}
	host.Close()
	var e Entry
	var err error
	_ = testkit.Poll(10*time.Second, 50*time.Millisecond, func() error {
		// a request written as the old server went away is lost: it
		// fails at its deadline and the next one reaches the new server
		gctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		e, err = ps.Get(gctx, "k")
		return err
	})
	if err != nil || string(e.Value) != "1" || !peer.Hosting() {
		t.Fatalf("after the host left: %s %v, hosting %v", e.Value, err, peer.Hosting())
	}
}

// sockDialer dials one unix socket whatever the URL says.
type sockDialer string

func (d sockDialer) Dial(string, string) (net.Conn, error) { return net.Dial("unix", string(d)) }

// tcpListeners lists the TCP sockets this process listens on, as
// /proc/net/tcp{,6} rows' local addresses.
func tcpListeners(t *testing.T) []string {
	t.Helper()
	mine := map[string]bool{}
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(l, "socket:[") {
			mine[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	var out []string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(table)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) > 9 && f[3] == "0A" && mine[f[9]] { // 0A: LISTEN
				out = append(out, f[1])
			}
		}
	}
	return out
}
