package swarm

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"golang.org/x/sys/unix"
)

// maxSockPath is the longest socket path bind(2) takes (sun_path less
// its terminating NUL); longer paths are reached through the directory's
// descriptor (/proc/self/fd/N/name).
const maxSockPath = 107

// inDir calls fn with a path naming name in dir that fits a socket
// address, however deep dir is.
func inDir(dir, name string, fn func(path string) error) error {
	p := filepath.Join(dir, name)
	if len(p) <= maxSockPath {
		return fn(p)
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	return fn(fmt.Sprintf("/proc/self/fd/%d/%s", fd, name))
}

// listenUnix listens on dir/name, owner-only, replacing a socket a dead
// host left (the caller holds the host lock).
func listenUnix(dir, name string) (net.Listener, error) {
	if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var ln *net.UnixListener
	err := inDir(dir, name, func(p string) error {
		var err error
		if ln, err = net.ListenUnix("unix", &net.UnixAddr{Name: p, Net: "unix"}); err != nil {
			return err
		}
		// owner-only (the directory is 0700 too)
		if err := os.Chmod(p, 0o600); err != nil {
			ln.Close()
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	ln.SetUnlinkOnClose(false) // the path may be a descriptor's: host.stop removes it
	return ln, nil
}

// dialUnix connects to the socket dir/name.
func dialUnix(dir, name string) (net.Conn, error) {
	var c net.Conn
	err := inDir(dir, name, func(p string) error {
		var err error
		c, err = net.DialTimeout("unix", p, answerWait)
		return err
	})
	return c, err
}

// serveUnix hands every connection on ln to the embedded server as an
// in-process client connection, until ln is closed.
func serveUnix(ln net.Listener, srv *server.Server) {
	for {
		c, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return // closed
		}
		go relay(c, srv)
	}
}

// relay copies bytes between a socket client and a fresh in-process
// connection of srv; either side closing closes both.
func relay(c net.Conn, srv *server.Server) {
	ic, err := srv.InProcessConn()
	if err != nil {
		c.Close()
		return
	}
	go func() {
		io.Copy(ic, c)
		ic.Close()
	}()
	io.Copy(c, ic)
	c.Close()
	ic.Close()
}
