package swarm

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// TestEmbeddedServerGuarded: the server listens on loopback only and
// accepts only the project's generated credentials, kept 0600; looser or
// broken credentials are refused with what to do.
func TestEmbeddedServerGuarded(t *testing.T) {
	dir := t.TempDir()
	c, _ := open(t, dir, Options{})
	auth := filepath.Join(dir, natsDir, authFile)
	if fi, err := os.Stat(auth); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("credentials: %v %v", fi.Mode(), err)
	}
	var a address
	data, _ := os.ReadFile(filepath.Join(dir, natsDir, addrFile))
	if json.Unmarshal(data, &a); !strings.HasPrefix(a.URL, "nats://127.0.0.1:") || a.PID != os.Getpid() {
		t.Fatalf("recorded address: %s", data)
	}
	if nc, err := nats.Connect(a.URL); err == nil {
		nc.Close()
		t.Fatal("a client without the credentials was let in")
	}
	if nc, err := nats.Connect(a.URL, nats.UserInfo("autarch", "guess")); err == nil {
		nc.Close()
		t.Fatal("a wrong password was let in")
	}
	c.Close()
	if _, err := os.Stat(filepath.Join(dir, natsDir, addrFile)); err == nil {
		t.Error("the address of a stopped server is still recorded")
	}

	os.Chmod(auth, 0o644)
	if _, err := Connect(context.Background(), ConnOptions{StateDir: dir}); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("readable credentials: %v", err)
	}
	os.WriteFile(auth, []byte("{"), 0o600)
	os.Chmod(auth, 0o600)
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
	os.WriteFile(filepath.Join(dir, natsDir, addrFile), []byte(`{"url":"nats://127.0.0.1:1","pid":1}`), 0o644)
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
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		// a request written as the old server went away is lost: it
		// fails at its deadline and the next one reaches the new server
		gctx, cancel := context.WithTimeout(ctx, time.Second)
		e, err = ps.Get(gctx, "k")
		cancel()
		if err == nil {
			break
		}
	}
	if err != nil || string(e.Value) != "1" || !peer.Hosting() {
		t.Fatalf("after the host left: %s %v, hosting %v", e.Value, err, peer.Hosting())
	}
}
