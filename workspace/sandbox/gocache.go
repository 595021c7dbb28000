package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The Go build cache of a command is the repository's own (Spec.BuildCache,
// writable), read over the user's own (go env GOCACHE, read-only): the go
// command trusts an entry of its build cache without hashing it again, so
// a cache one repository's commands can write must never be read by
// another's builds (redteam s10, 04), and the user's own must never be
// written (redteam s10, 05). A per-repository cache alone would compile
// the standard library cold in every new repository; the user's own holds
// it for their toolchain, written only by the user's own builds.
//
// bubblewrap 0.8 cannot mount an overlay, so the layering is Go's own
// GOCACHEPROG (Go 1.24 and later): the go command asks a program for each
// entry. That program is the running binary run again inside the sandbox
// (goCacheMarker), with the command's rights: it looks an entry up in the
// repository's cache, then in the user's (never touching it), and writes
// what the go command puts into the repository's, in the go command's
// own format, so that a command that unsets GOCACHEPROG reads the same
// entries. Nothing it does needs trust: it can write nothing a command
// could not, and read nothing the command cannot. A go older than 1.24
// ignores GOCACHEPROG and uses the repository's cache alone (cold, safe).

// goCacheMarker is the first argument of the running binary run as the
// go command's cache program; the repository's cache and the user's
// follow.
const goCacheMarker = "autarch-sandbox-gocache"

// goCacheProgPath is where the running binary is bound, read-only, inside
// the sandbox, for GOCACHEPROG.
const goCacheProgPath = "/run/autarch-sandbox/gocache"

// goCacheFD is the descriptor at which bwrap finds the running binary to
// bind at goCacheProgPath (bwrap closes it): after the mask helper's.
const goCacheFD = helperFD + 1

// The go command's cache timings (cmd/go/internal/cache): an entry's
// mtime is refreshed on use at most once an hour; the cache is trimmed at
// most once a day of what went unused for five days.
const (
	goCacheMtimeInterval = time.Hour
	goCacheTrimInterval  = 24 * time.Hour
	goCacheTrimLimit     = 5 * 24 * time.Hour
)

func init() {
	if len(os.Args) < 3 || os.Args[1] != goCacheMarker {
		return
	}
	c := goCache{own: os.Args[2], trusted: os.Args[3:], now: time.Now}
	if err := c.serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "autarch sandbox: the Go build cache program: %v; unset GOCACHEPROG to build with the repository's cache alone\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// goCacheProg is GOCACHEPROG for a command whose repository's build cache
// is own, over the user's trusted one; "" when a path cannot be quoted
// for the go command (it splits GOCACHEPROG on spaces, with quotes and no
// escapes).
func goCacheProg(own, trusted string) string {
	parts := []string{goCacheProgPath, goCacheMarker, own, trusted}
	for i, p := range parts {
		switch {
		case !strings.ContainsAny(p, " \t\n\r'\""):
		case !strings.Contains(p, "'"):
			parts[i] = "'" + p + "'"
		case !strings.Contains(p, `"`):
			parts[i] = `"` + p + `"`
		default:
			return ""
		}
	}
	return strings.Join(parts, " ")
}

// goCacheRequest and goCacheResponse are the GOCACHEPROG protocol's
// messages (cmd/go/internal/cacheprog).
type goCacheRequest struct {
	ID       int64
	Command  string
	ActionID []byte `json:",omitempty"`
	OutputID []byte `json:",omitempty"`
	ObjectID []byte `json:",omitempty"` // OutputID before Go 1.24
	BodySize int64  `json:",omitempty"`
}

type goCacheResponse struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

// goCache serves the go command's cache requests: entries are looked up
// in own, then in each trusted cache, and put in own.
type goCache struct {
	own     string
	trusted []string
	now     func() time.Time
}

// serve answers requests from r on w until "close" or the end of r.
func (c goCache) serve(r io.Reader, w io.Writer) error {
	in, out := bufio.NewReaderSize(r, 64<<10), bufio.NewWriter(w)
	enc := json.NewEncoder(out)
	send := func(res goCacheResponse) error {
		if err := enc.Encode(res); err != nil {
			return err
		}
		return out.Flush()
	}
	if err := send(goCacheResponse{KnownCommands: []string{"get", "put", "close"}}); err != nil {
		return err
	}
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) == 0 {
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			continue
		}
		var req goCacheRequest
		if err := json.Unmarshal(line, &req); err != nil {
			return fmt.Errorf("reading a request: %w", err)
		}
		res := goCacheResponse{ID: req.ID}
		switch req.Command {
		case "get":
			c.get(req, &res)
		case "put":
			var body io.Reader = bytes.NewReader(nil)
			if req.BodySize > 0 {
				body, err = bodyReader(in)
				if err != nil {
					return err
				}
			}
			if err := c.put(req, body, &res); err != nil {
				res.Err = err.Error()
			}
			if req.BodySize > 0 {
				// The rest of a body that was not stored, and its closing quote.
				if _, err := io.Copy(io.Discard, body); err != nil {
					return err
				}
			}
		case "close":
			c.trim()
			return send(res)
		default:
			res.Err = fmt.Sprintf("unknown command %q", req.Command)
		}
		if err := send(res); err != nil {
			return err
		}
	}
}

// bodyReader reads a put's body from in: a base64 JSON string.
func bodyReader(in *bufio.Reader) (io.Reader, error) {
	for {
		b, err := in.ReadByte()
		if err != nil {
			return nil, fmt.Errorf("reading a body: %w", err)
		}
		if b == '"' {
			return base64.NewDecoder(base64.StdEncoding, &quoted{in: in}), nil
		}
		if b != ' ' && b != '\n' && b != '\r' && b != '\t' {
			return nil, fmt.Errorf("reading a body: %q where a string starts", b)
		}
	}
}

// quoted reads up to the closing quote of a JSON string without escapes.
type quoted struct {
	in   *bufio.Reader
	done bool
}

func (q *quoted) Read(p []byte) (int, error) {
	if q.done {
		return 0, io.EOF
	}
	if q.in.Buffered() == 0 {
		if _, err := q.in.Peek(1); err != nil {
			return 0, fmt.Errorf("reading a body: %w", err)
		}
	}
	buf, _ := q.in.Peek(min(len(p), q.in.Buffered()))
	if i := bytes.IndexByte(buf, '"'); i >= 0 {
		n := copy(p, buf[:i])
		_, _ = q.in.Discard(i + 1)
		q.done = true
		if n == 0 {
			return 0, io.EOF
		}
		return n, nil
	}
	n := copy(p, buf)
	_, _ = q.in.Discard(n)
	return n, nil
}

// get fills res with the entry of req.ActionID: the repository's own
// first, then the trusted caches'.
func (c goCache) get(req goCacheRequest, res *goCacheResponse) {
	res.Miss = true
	if len(req.ActionID) == 0 {
		return
	}
	for i, dir := range append([]string{c.own}, c.trusted...) {
		out, size, at, ok := readGoCacheEntry(dir, req.ActionID)
		if !ok {
			continue
		}
		p := goCacheFile(dir, out, "d")
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() != size {
			continue
		}
		if i == 0 {
			c.used(goCacheFile(dir, req.ActionID, "a"))
			c.used(p)
		}
		res.Miss, res.OutputID, res.Size, res.Time, res.DiskPath = false, out, size, &at, p
		return
	}
}

// put stores body as the output of req.ActionID in the repository's cache.
func (c goCache) put(req goCacheRequest, body io.Reader, res *goCacheResponse) error {
	if len(req.OutputID) == 0 {
		req.OutputID = req.ObjectID
	}
	if len(req.ActionID) == 0 || len(req.OutputID) == 0 {
		return errors.New("put without an action or output id")
	}
	p := goCacheFile(c.own, req.OutputID, "d")
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		return err
	}
	if fi, err := os.Stat(p); err != nil || fi.Size() != req.BodySize {
		tmp, err := os.CreateTemp(filepath.Dir(p), ".put-*")
		if err != nil {
			return err
		}
		n, err := io.Copy(tmp, body)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil && n != req.BodySize {
			err = fmt.Errorf("body of %d bytes, %d announced", n, req.BodySize)
		}
		if err == nil {
			err = os.Rename(tmp.Name(), p)
		}
		if err != nil {
			os.Remove(tmp.Name())
			return err
		}
	}
	a := goCacheFile(c.own, req.ActionID, "a")
	if err := os.MkdirAll(filepath.Dir(a), 0o777); err != nil {
		return err
	}
	entry := fmt.Sprintf("v1 %x %x %20d %20d\n", req.ActionID, req.OutputID, req.BodySize, c.now().UnixNano())
	if err := os.WriteFile(a, []byte(entry), 0o666); err != nil {
		return err
	}
	res.DiskPath = p
	return nil
}

// used refreshes the mtime of a file of the repository's cache, as the go
// command does, so that trimming keeps what is used.
func (c goCache) used(p string) {
	if fi, err := os.Stat(p); err == nil && c.now().Sub(fi.ModTime()) >= goCacheMtimeInterval {
		_ = os.Chtimes(p, c.now(), c.now())
	}
}

// trim removes, at most once a day, the repository's cache entries unused
// for five days, as the go command trims its own.
func (c goCache) trim() {
	mark := filepath.Join(c.own, "trim.txt")
	now := c.now()
	if data, err := os.ReadFile(mark); err == nil {
		if t, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil {
			if d := now.Sub(time.Unix(t, 0)); d < goCacheTrimInterval && d > -goCacheMtimeInterval {
				return
			}
		}
	}
	cutoff := now.Add(-goCacheTrimLimit - goCacheMtimeInterval)
	for i := 0; i < 256; i++ {
		sub := filepath.Join(c.own, fmt.Sprintf("%02x", i))
		ents, err := os.ReadDir(sub)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && fi.ModTime().Before(cutoff) {
				_ = os.Remove(filepath.Join(sub, e.Name()))
			}
		}
	}
	_ = os.WriteFile(mark, []byte(strconv.FormatInt(now.Unix(), 10)+"\n"), 0o666)
}

// goCacheFile is the file of id in the go command's cache dir: key "a"
// for an action's entry, "d" for an output.
func goCacheFile(dir string, id []byte, key string) string {
	h := hex.EncodeToString(id)
	if len(h) < 2 {
		h = "00" + h
	}
	return filepath.Join(dir, h[:2], h+"-"+key)
}

// goCacheEntrySize is the size of an action's entry: "v1 <action>
// <output> <size> <time>\n", ids in hex, numbers in 20 columns.
const goCacheEntrySize = 2 + 1 + 64 + 1 + 64 + 1 + 20 + 1 + 20 + 1

// readGoCacheEntry reads the entry of action id in dir.
func readGoCacheEntry(dir string, id []byte) (out []byte, size int64, at time.Time, ok bool) {
	data, err := os.ReadFile(goCacheFile(dir, id, "a"))
	if err != nil || len(data) != goCacheEntrySize || !bytes.HasPrefix(data, []byte("v1 ")) || data[len(data)-1] != '\n' {
		return nil, 0, time.Time{}, false
	}
	f := strings.Fields(string(data[3:]))
	if len(f) != 4 || f[0] != hex.EncodeToString(id) {
		return nil, 0, time.Time{}, false
	}
	out, err = hex.DecodeString(f[1])
	if err != nil || len(out) != 32 {
		return nil, 0, time.Time{}, false
	}
	size, err1 := strconv.ParseInt(f[2], 10, 64)
	ns, err2 := strconv.ParseInt(f[3], 10, 64)
	if err1 != nil || err2 != nil || size < 0 {
		return nil, 0, time.Time{}, false
	}
	return out, size, time.Unix(0, ns), true
}

// goCacheLayer returns GOCACHEPROG for a command whose build cache is own:
// the cache program over the user's own GOCACHE, once the probe ran it
// (or the spec is the probe's trial); "" when there is no user's cache to
// read (the repository's cache alone, cold but safe).
func (b *Bwrap) goCacheLayer(spec Spec, own string) string {
	user := b.goCache
	if !b.goCacheProg.Load() && !spec.goCacheProg {
		return ""
	}
	if user == "" || !filepath.IsAbs(user) || !isDir(user) || denied(user) || within(own, user) || within(user, own) {
		return ""
	}
	return goCacheProg(own, user)
}

// buildCacheDir makes the build cache folder p (see cacheDir).
func buildCacheDir(p string, inOwn bool) error {
	if err := cacheDir(p, inOwn, 0o755); err != nil {
		return fmt.Errorf("sandbox: build cache: %w", err)
	}
	return nil
}

// cacheDir makes the cache folder p. Inside the repository's caches
// (inOwn) a command may have put something else in its place (a symlink,
// a dangling one included, or a file): it is removed first, so that
// nothing is made through it and no command fails on it (redteam s11 03).
func cacheDir(p string, inOwn bool, perm os.FileMode) error {
	if fi, err := os.Lstat(p); inOwn && err == nil && !fi.IsDir() {
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	return os.MkdirAll(p, perm)
}

// probeGoCache runs the Go build cache program in a trial command in the
// probe's directory: it must answer the go command's handshake and a
// close. It turns the program on when the trial passes, and says why not
// otherwise ("" when it passed or there is no user's build cache to
// read).
func (b *Bwrap) probeGoCache(ctx context.Context, dir string, limit time.Duration) string {
	if b.goCache == "" || !isDir(b.goCache) {
		return ""
	}
	res, err := b.Run(ctx, Spec{Dir: dir, BuildCache: filepath.Join(dir, "go-build"), Timeout: limit, goCacheProg: true,
		Command: `test -n "$GOCACHEPROG" && printf '{"ID":1,"Command":"close"}\n' | eval "$GOCACHEPROG"`})
	switch {
	case err != nil:
		return err.Error()
	case res.ExitCode != 0:
		return fmt.Sprintf("exit %d: %s", res.ExitCode, strings.TrimSpace(res.Stderr))
	case !strings.Contains(res.Stdout, `"KnownCommands":["get","put","close"]`) || !strings.Contains(res.Stdout, `{"ID":1}`):
		return fmt.Sprintf("unexpected answer %q", res.Stdout)
	}
	b.goCacheProg.Store(true)
	return ""
}
