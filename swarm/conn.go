package swarm

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/sys/unix"
)

// Environment variables that point every process at an external NATS.
const (
	EnvURL   = "AUTARCH_NATS_URL"
	EnvCreds = "AUTARCH_NATS_CREDS"
)

// Files of the embedded server under <StateDir>/nats.
const (
	natsDir    = "nats"
	hostLock   = "host.lock"   // held (flock LOCK_EX) by the process hosting the server
	addrFile   = "server.json" // who hosts: {"socket", "pid"}
	sockFile   = "nats.sock"   // the host's unix socket (no TCP port: see startServer)
	authFile   = "auth.json"   // the project's generated credentials (0600)
	storeDir   = "jetstream"   // the JetStream file store
	dialWait   = 5 * time.Second
	answerWait = 500 * time.Millisecond
)

// ConnOptions say which NATS a process uses.
type ConnOptions struct {
	// StateDir is the project's state directory (outside the work tree,
	// e.g. <git common dir>/autarch); the embedded server keeps its
	// address, credentials and JetStream file store under StateDir/nats.
	StateDir string
	// URL is an external NATS (AUTARCH_NATS_URL): "" uses the project's
	// embedded one. CredsFile is its .creds file (AUTARCH_NATS_CREDS).
	URL       string
	CredsFile string
	// Logger receives the server's and the connection's events (nil: discarded).
	Logger *slog.Logger
}

// ConnOptionsFromEnv fills URL and CredsFile from the environment.
func ConnOptionsFromEnv(stateDir string) ConnOptions {
	return ConnOptions{StateDir: stateDir, URL: os.Getenv(EnvURL), CredsFile: os.Getenv(EnvCreds)}
}

// Conn is one process's connection to the project's NATS. When the
// process hosts the embedded server, the server lives as long as the Conn.
type Conn struct {
	nc  *nats.Conn
	js  jetstream.JetStream
	log *slog.Logger
	h   *host // nil for an external NATS

	mu sync.Mutex // guards h's server and lock across dials
}

// Connect connects to the project's NATS: the external one when
// opts.URL is set, else the project's running embedded server (its
// address recorded in the state dir), else it starts the embedded server
// in this process. See the package doc for the election and hand-over.
func Connect(ctx context.Context, opts ConnOptions) (*Conn, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Conn{log: log}
	nopts := []nats.Option{nats.Name("autarch"), nats.MaxReconnects(-1), nats.ReconnectWait(50 * time.Millisecond),
		nats.ReconnectJitter(50*time.Millisecond, 0)}
	url := opts.URL
	if url != "" {
		if opts.CredsFile != "" {
			nopts = append(nopts, nats.UserCredentials(opts.CredsFile))
		}
	} else {
		if opts.StateDir == "" {
			return nil, errors.New("swarm: no state directory for the embedded NATS (set StateDir, or AUTARCH_NATS_URL for an external one)")
		}
		dir := filepath.Join(opts.StateDir, natsDir)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("swarm: state directory: %w", err)
		}
		auth, err := loadAuth(dir)
		if err != nil {
			return nil, err
		}
		c.h = &host{dir: dir, auth: auth, log: log}
		url = "nats://127.0.0.1" // a placeholder: the dialer decides where to connect (host.dial)
		nopts = append(nopts, nats.UserInfo(auth.User, auth.Password), nats.SetCustomDialer(dialer{c}), nats.DontRandomize())
	}
	nopts = append(nopts,
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Info("swarm: NATS disconnected", "err", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) { log.Info("swarm: NATS reconnected", "url", nc.ConnectedUrl()) }))
	nc, err := nats.Connect(url, nopts...)
	if err != nil {
		c.stopHost()
		if opts.URL != "" {
			return nil, fmt.Errorf("swarm: connecting to %s (%s): %w", opts.URL, EnvURL, err)
		}
		return nil, fmt.Errorf("swarm: connecting to the project's NATS: %w", err)
	}
	c.nc = nc
	if c.js, err = jetstream.New(nc); err != nil {
		c.Close()
		return nil, fmt.Errorf("swarm: JetStream: %w", err)
	}
	if _, err := c.js.AccountInfo(ctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("swarm: the NATS at %s has no JetStream (enable it: nats-server -js): %w", nc.ConnectedUrl(), err)
	}
	return c, nil
}

// URL is the address of the NATS this connection uses.
func (c *Conn) URL() string { return c.nc.ConnectedUrl() }

// NATS is the connection itself, for other JetStream users of the same
// NATS (the fleet); it lives as long as the Conn.
func (c *Conn) NATS() *nats.Conn { return c.nc }

// JetStream is the connection's JetStream context.
func (c *Conn) JetStream() jetstream.JetStream { return c.js }

// Hosting reports whether this process runs the embedded server.
func (c *Conn) Hosting() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.h != nil && c.h.srv != nil
}

// Close drains the connection and, when this process hosts the embedded
// server, shuts it down (another user's connection then takes it over).
func (c *Conn) Close() error {
	if c.nc != nil {
		c.nc.Close()
	}
	c.stopHost()
	return nil
}

func (c *Conn) stopHost() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h != nil {
		c.h.stop()
	}
}

// dialer dials the project's current server, starting it when none answers.
type dialer struct{ c *Conn }

func (d dialer) Dial(network, _ string) (net.Conn, error) {
	d.c.mu.Lock()
	defer d.c.mu.Unlock()
	return d.c.h.dial(network)
}

// auth is the project's generated NATS credentials.
type auth struct {
	User     string `json:"user"`
	Password string `json:"password"`
}

// loadAuth reads the project's credentials, generating them (0600) on
// first use; an existing file with looser permissions is refused.
func loadAuth(dir string) (auth, error) {
	path := filepath.Join(dir, authFile)
	var a auth
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return a, err
		}
		a = auth{User: "autarch", Password: hex.EncodeToString(b)}
		data, _ = json.Marshal(a)
		if err := writeFileAtomic(path, data, 0o600); err != nil {
			return a, fmt.Errorf("swarm: writing credentials: %w", err)
		}
		// another process may have won the race: read what is there
		if data, err = os.ReadFile(path); err != nil {
			return a, err
		}
	} else if err != nil {
		return a, fmt.Errorf("swarm: reading credentials: %w", err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		return a, fmt.Errorf("swarm: %s is readable by others (mode %v): chmod 600 it", path, fi.Mode().Perm())
	}
	if err := json.Unmarshal(data, &a); err != nil || a.User == "" || a.Password == "" {
		return a, fmt.Errorf("swarm: %s is not valid credentials: delete it to generate new ones", path)
	}
	return a, nil
}

// writeFileAtomic writes data to path through a temporary file: renamed
// over path, or, for credentials (0600), linked to it so that the first
// writer's file stands when two processes race.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if perm == 0o600 {
		if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
		return nil
	}
	return os.Rename(tmp.Name(), path)
}

// host runs or finds the project's embedded server.
type host struct {
	dir  string
	auth auth
	log  *slog.Logger
	lock *os.File       // the host lock while this process hosts
	srv  *server.Server // the embedded server while this process hosts
	ln   net.Listener   // its unix socket while this process hosts
}

// address is what the host records: the name of its unix socket in the
// nats directory and its process id.
type address struct {
	Socket string `json:"socket"`
	PID    int    `json:"pid"`
}

// dial connects to the recorded server if it answers, else takes the host
// lock and starts the server here. A process that cannot take the lock
// waits for the host to record its address.
func (h *host) dial(network string) (net.Conn, error) {
	deadline := time.Now().Add(dialWait)
	for {
		if h.srv != nil {
			return h.srv.InProcessConn() // the host talks to its server in memory
		}
		// The lock is the truth: when it is free nobody hosts, whatever
		// address a crashed host left recorded.
		started, err := h.tryStart()
		if err != nil {
			return nil, err
		}
		if started {
			continue
		}
		if name, err := h.recorded(); err == nil {
			if conn, err := dialUnix(h.dir, name); err == nil {
				return conn, nil
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the project's NATS (%s) does not answer and another process holds %s", filepath.Join(h.dir, addrFile), filepath.Join(h.dir, hostLock))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// recorded is the socket name of the recorded server (a plain name in
// the nats directory; anything else is not dialled).
func (h *host) recorded() (string, error) {
	data, err := os.ReadFile(filepath.Join(h.dir, addrFile))
	if err != nil {
		return "", err
	}
	var a address
	if err := json.Unmarshal(data, &a); err != nil {
		return "", err
	}
	if a.Socket == "" || a.Socket != filepath.Base(a.Socket) {
		return "", fmt.Errorf("%s records no socket", filepath.Join(h.dir, addrFile))
	}
	return a.Socket, nil
}

// tryStart takes the host lock without waiting and starts the server;
// false when another process holds the lock (it hosts or is starting).
func (h *host) tryStart() (bool, error) {
	f, err := os.OpenFile(filepath.Join(h.dir, hostLock), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return false, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return false, nil
		}
		return false, fmt.Errorf("locking %s: %w", f.Name(), err)
	}
	srv, err := startServer(h.dir, h.auth)
	if err != nil {
		f.Close()
		return false, err
	}
	ln, err := listenUnix(h.dir, sockFile)
	if err != nil {
		srv.Shutdown()
		f.Close()
		return false, fmt.Errorf("swarm: the embedded NATS's socket: %w", err)
	}
	data, _ := json.Marshal(address{Socket: sockFile, PID: os.Getpid()})
	if err := writeFileAtomic(filepath.Join(h.dir, addrFile), data, 0o644); err != nil {
		ln.Close()
		srv.Shutdown()
		f.Close()
		return false, fmt.Errorf("recording the server's address: %w", err)
	}
	h.lock, h.srv, h.ln = f, srv, ln
	go serveUnix(ln, srv)
	h.log.Info("swarm: started the project's NATS", "socket", filepath.Join(h.dir, sockFile), "store", filepath.Join(h.dir, storeDir))
	return true, nil
}

// startServer starts an embedded nats-server with JetStream on a file
// store, with the project's credentials, listening on no port at all:
// the host talks to it in memory and other Autarch processes through the
// host's unix socket in the state directory (serveUnix). A TCP port on
// loopback would be reachable from every sandboxed command that has the
// network (a preflight); the state directory is masked in every sandbox.
func startServer(dir string, a auth) (*server.Server, error) {
	opts := &server.Options{
		ServerName: "autarch",
		DontListen: true,
		Username:   a.User,
		Password:   a.Password,
		JetStream:  true,
		StoreDir:   filepath.Join(dir, storeDir),
		NoSigs:     true,
		NoLog:      true,
		HTTPPort:   0,
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("starting the embedded NATS: %w", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return nil, errors.New("the embedded NATS did not become ready in 10s")
	}
	return srv, nil
}

// stop shuts the hosted server down and releases the host lock.
func (h *host) stop() {
	if h.srv == nil {
		return
	}
	// forget the address first so that other users do not dial a dying
	// server (the file is ours: we hold the host lock)
	os.Remove(filepath.Join(h.dir, addrFile))
	h.ln.Close()
	os.Remove(filepath.Join(h.dir, sockFile))
	h.srv.Shutdown()
	h.srv.WaitForShutdown()
	h.lock.Close()
	h.srv, h.lock, h.ln = nil, nil, nil
}
