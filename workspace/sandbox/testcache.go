package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The go command keeps no test result when it runs the test binaries
// through -exec, as the gates do (gatecache.go). The gates' -exec program
// keeps them instead, with the go command's semantics
// (cmd/go/internal/test), in a folder of the gates' build cache
// (testResultsDir) that it alone writes: the test binaries it runs are
// restricted by Landlock to writing elsewhere, and no agent command sees
// the gates' cache at all.
//
// A result is found in two steps, as go's. The test's id hashes the test
// binary's contents, its arguments (only when each is one go would cache
// a result for), its working directory and its confinement; under it is
// the test log of the last passing run (-test.testlogfile: the
// environment variables, files and folders the test looked at). The
// inputs' id hashes what the log names as they are now: the variables'
// values, the files' contents and stat information, the folders'
// listings, within the module only; a file changed less than
// testInputTooNew ago makes the result one not to keep, since a change
// within the file system's time resolution could go unseen. Under the
// test's and inputs' ids is the output of that run, which is replayed
// verbatim instead of running the binary again. Only a run the -exec
// program saw exit 0 is kept: a failing test always runs again.
//
// What the test binary writes is the agent's code's: its output is
// replayed as it was, and its test log can only name fewer inputs than
// it read (or more), which makes its own result stale or never kept. A
// test that always passes could do as much.

// testResultsDir is the test results' folder in the gates' build cache.
const testResultsDir = "autarch-test-results"

const (
	// testResultsLimit bounds the results kept: past it the oldest used
	// are removed, at most every testResultsTrimInterval.
	testResultsLimit        = 256 << 20
	testResultsTrimInterval = time.Hour
	// testResultsMaxOutput is the largest output kept; a longer run is
	// run again every time.
	testResultsMaxOutput = 16 << 20
	// testLogMax is the largest test log read.
	testLogMax = 4 << 20
	// testInputTooNew is go's modTimeCutoff.
	testInputTooNew = 2 * time.Second
	// testInputHashMax is the largest input file whose contents are
	// hashed; a larger one is known by its stat information, as go
	// knows every file.
	testInputHashMax = 64 << 20
	// testWaitDelay is how long the output of a test binary may outlive
	// it, as go test's least.
	testWaitDelay = 5 * time.Second
)

// testLogMagic starts a test log (testing/internal/testdeps).
var testLogMagic = []byte("# test log\n")

var errTestInputs = errors.New("the test's inputs cannot be known")

// testResults is a folder of test results.
type testResults struct {
	dir   string
	limit int64
	now   func() time.Time
}

// testKey says where the result of one run of a test binary is kept.
type testKey struct {
	id   [32]byte // the test's id
	dir  string   // the test's working directory
	root string   // its module's root: inputs outside it are not looked at
	env  []string // its environment
}

// cacheableTestArgs says whether go would keep the result of a test
// binary run with args, and which of them make its key.
func cacheableTestArgs(args []string) ([]string, bool) {
	var key []string
	for _, a := range args {
		if a == "-test.paniconexit0" {
			key = append(key, a)
			continue
		}
		name, _, ok := strings.Cut(a, "=")
		if !ok || !strings.HasPrefix(name, "-test.") {
			return nil, false
		}
		switch name {
		case "-test.benchtime", "-test.cpu", "-test.list", "-test.parallel", "-test.run", "-test.short",
			"-test.skip", "-test.timeout", "-test.failfast", "-test.v", "-test.fullpath":
			key = append(key, a)
		default:
			// Everything else, -test.coverprofile and -test.outputdir
			// included: go caches those with the files they write, which
			// this cache does not keep.
			return nil, false
		}
	}
	return key, true
}

// moduleRoot is the folder of the go.mod above dir, "" when none.
func moduleRoot(dir string) string {
	for d := filepath.Clean(dir); ; {
		if fi, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && fi.Mode().IsRegular() {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

// newTestKey returns the key of the test binary argv[0] run with
// argv[1:] in dir with env, confined as confinement says; false when go
// would not keep its result.
func newTestKey(argv []string, dir string, env []string, confinement string) (testKey, bool) {
	args, ok := cacheableTestArgs(argv[1:])
	if !ok || !filepath.IsAbs(dir) {
		return testKey{}, false
	}
	root := moduleRoot(dir)
	if root == "" {
		return testKey{}, false
	}
	f, err := os.Open(argv[0])
	if err != nil {
		return testKey{}, false
	}
	defer f.Close()
	bin := sha256.New()
	if _, err := io.Copy(bin, f); err != nil {
		return testKey{}, false
	}
	h := sha256.New()
	fmt.Fprintf(h, "autarch test v1\nbinary %x\nargs %q\ndir %q\nroot %q\nconfinement %q\n", bin.Sum(nil), args, dir, root, confinement)
	k := testKey{dir: dir, root: root, env: env}
	h.Sum(k.id[:0])
	return k, true
}

// lookup returns the output of the passing run kept for k whose inputs
// are as they are now.
func (c testResults) lookup(k testKey) ([]byte, bool) {
	log, ok := c.read(k.id, "log")
	if !ok {
		return nil, false
	}
	in, err := testInputsID(log, k, c.now())
	if err != nil {
		return nil, false
	}
	out, ok := c.read(outputID(k.id, in), "out")
	return out, ok
}

// store keeps out, the output of a passing run of k whose test log is
// log; a run whose inputs cannot be known is not kept.
func (c testResults) store(k testKey, log, out []byte) error {
	in, err := testInputsID(log, k, c.now())
	if err != nil {
		return err
	}
	if err := c.write(k.id, "log", log); err != nil {
		return err
	}
	if err := c.write(outputID(k.id, in), "out", out); err != nil {
		return err
	}
	c.trim()
	return nil
}

// outputID is where the output of the test id with inputs in is kept.
func outputID(id, in [32]byte) [32]byte {
	return sha256.Sum256(fmt.Appendf(nil, "autarch test output v1\n%x\n%x\n", id, in))
}

// testInputsID hashes what the test log names as it is now, as go's
// computeTestInputsID does, but for regular files' contents, which go
// does not read.
func testInputsID(log []byte, k testKey, now time.Time) ([32]byte, error) {
	if !bytes.HasPrefix(log, testLogMagic) || log[len(log)-1] != '\n' {
		return [32]byte{}, errTestInputs
	}
	h := sha256.New()
	fmt.Fprintf(h, "autarch test inputs v1\nenv GODEBUG %x\n", hashGetenv(k.env, "GODEBUG"))
	pwd := k.dir
	opened := map[string][32]byte{}
	for line := range bytes.Lines(log[len(testLogMagic):]) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(line) == 0 {
			continue
		}
		op, name, ok := strings.Cut(string(line), " ")
		if !ok {
			return [32]byte{}, errTestInputs
		}
		if op == "stat" || op == "open" {
			if !filepath.IsAbs(name) {
				name = filepath.Join(pwd, name)
			}
			if !within(filepath.Clean(name), k.root) {
				continue // as go: files outside the module are not looked at
			}
		}
		switch op {
		case "getenv":
			fmt.Fprintf(h, "env %s %x\n", name, hashGetenv(k.env, name))
		case "chdir":
			pwd = name
			fmt.Fprintf(h, "chdir %s %x\n", name, hashStat(name))
		case "stat":
			fmt.Fprintf(h, "stat %s %x\n", name, hashStat(name))
		case "open":
			sum, seen := opened[name]
			if !seen {
				var err error
				if sum, err = hashOpen(name, now); err != nil {
					return [32]byte{}, err
				}
				opened[name] = sum
			}
			fmt.Fprintf(h, "open %s %x\n", name, sum)
		default:
			return [32]byte{}, errTestInputs
		}
	}
	var id [32]byte
	h.Sum(id[:0])
	return id, nil
}

func hashGetenv(env []string, name string) [32]byte {
	v, ok := lookupEnv(env, name)
	if !ok {
		return sha256.Sum256([]byte{0})
	}
	return sha256.Sum256(append([]byte{1}, v...))
}

func hashStat(name string) [32]byte {
	h := sha256.New()
	if fi, err := os.Stat(name); err != nil {
		fmt.Fprintf(h, "err %v\n", err)
	} else {
		hashWriteStat(h, fi)
	}
	if fi, err := os.Lstat(name); err != nil {
		fmt.Fprintf(h, "err %v\n", err)
	} else {
		hashWriteStat(h, fi)
	}
	var id [32]byte
	h.Sum(id[:0])
	return id
}

func hashWriteStat(h io.Writer, fi fs.FileInfo) {
	fmt.Fprintf(h, "stat %d %x %v %v\n", fi.Size(), uint64(fi.Mode()), fi.ModTime().UnixNano(), fi.IsDir())
}

// hashOpen hashes a file the test opened: a folder's listing, a regular
// file's stat information and contents (an error when it changed less
// than testInputTooNew ago).
func hashOpen(name string, now time.Time) ([32]byte, error) {
	h := sha256.New()
	fi, err := os.Stat(name)
	switch {
	case err != nil:
		fmt.Fprintf(h, "err %v\n", err)
	case fi.IsDir():
		hashWriteStat(h, fi)
		ents, err := os.ReadDir(name)
		if err != nil {
			fmt.Fprintf(h, "err %v\n", err)
		}
		for _, e := range ents {
			fmt.Fprintf(h, "file %s ", e.Name())
			if info, err := e.Info(); err != nil {
				fmt.Fprintf(h, "err %v\n", err)
			} else {
				hashWriteStat(h, info)
			}
		}
	case fi.Mode().IsRegular():
		if now.Sub(fi.ModTime()) < testInputTooNew {
			return [32]byte{}, fmt.Errorf("%s: %w: changed too recently", name, errTestInputs)
		}
		hashWriteStat(h, fi)
		if fi.Size() <= testInputHashMax {
			if err := hashContents(h, name, fi); err != nil {
				return [32]byte{}, err
			}
		}
	default:
		hashWriteStat(h, fi)
	}
	var id [32]byte
	h.Sum(id[:0])
	return id, nil
}

// hashContents writes the contents of the regular file name, as stat
// described it, to h: never blocking on what replaced it since.
func hashContents(h io.Writer, name string, fi fs.FileInfo) error {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return fmt.Errorf("%s: %w: %w", name, errTestInputs, err)
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	now, err := f.Stat()
	if err != nil || !now.Mode().IsRegular() || now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime()) {
		return fmt.Errorf("%s: %w: it changed while it was read", name, errTestInputs)
	}
	if n, err := io.Copy(h, io.LimitReader(f, fi.Size()+1)); err != nil || n != fi.Size() {
		return fmt.Errorf("%s: %w: it changed while it was read", name, errTestInputs)
	}
	return nil
}

// An entry is a header, "autarch-test v1 <kind> <size> <sha256>\n", and
// its body: one whose header, size or sum do not match is a miss.
const testEntryMagic = "autarch-test v1 "

func (c testResults) file(id [32]byte, kind string) string {
	h := hex.EncodeToString(id[:])
	return filepath.Join(c.dir, h[:2], h+"-"+kind)
}

// read returns the body of the entry id of kind, false when there is none
// or it is damaged.
func (c testResults) read(id [32]byte, kind string) ([]byte, bool) {
	p := c.file(id, kind)
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > testResultsMaxOutput+4096 {
		return nil, false
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, false
	}
	head, body, ok := bytes.Cut(data, []byte("\n"))
	if !ok || !bytes.HasPrefix(head, []byte(testEntryMagic)) {
		return nil, false
	}
	fields := strings.Fields(string(head[len(testEntryMagic):]))
	if len(fields) != 3 || fields[0] != kind || fields[1] != strconv.Itoa(len(body)) {
		return nil, false
	}
	if sum := sha256.Sum256(body); fields[2] != hex.EncodeToString(sum[:]) {
		return nil, false
	}
	if c.now().Sub(fi.ModTime()) >= goCacheMtimeInterval {
		_ = os.Chtimes(p, c.now(), c.now()) // used: trimmed last
	}
	return body, true
}

// write stores body as the entry id of kind: whole or not at all.
func (c testResults) write(id [32]byte, kind string, body []byte) error {
	p := c.file(id, kind)
	// Landlock has no right for a file's mode: a test binary may have
	// made the folders unreadable (every result then missed). Ours again.
	_ = os.Chmod(c.dir, 0o700)
	_ = os.Chmod(filepath.Dir(p), 0o700)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".put-*")
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	_, err = fmt.Fprintf(tmp, "%s%s %d %x\n", testEntryMagic, kind, len(body), sum)
	if err == nil {
		_, err = tmp.Write(body)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// trim removes, at most every testResultsTrimInterval, what was unused
// for goCacheTrimLimit, then the least recently used entries until they
// take at most three quarters of the limit.
func (c testResults) trim() {
	mark := filepath.Join(c.dir, "trim.txt")
	now := c.now()
	if fi, err := os.Stat(mark); err == nil {
		if d := now.Sub(fi.ModTime()); d < testResultsTrimInterval && d > -testResultsTrimInterval {
			return
		}
	}
	if err := os.WriteFile(mark, nil, 0o600); err != nil {
		return
	}
	_ = os.Chtimes(mark, now, now)
	type entry struct {
		path string
		size int64
		used time.Time
	}
	var ents []entry
	var total int64
	for i := 0; i < 256; i++ {
		sub := filepath.Join(c.dir, fmt.Sprintf("%02x", i))
		des, err := os.ReadDir(sub)
		if err != nil {
			continue
		}
		for _, e := range des {
			fi, err := e.Info()
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			p := filepath.Join(sub, e.Name())
			if now.Sub(fi.ModTime()) > goCacheTrimLimit+goCacheMtimeInterval {
				_ = os.Remove(p)
				continue
			}
			ents = append(ents, entry{p, fi.Size(), fi.ModTime()})
			total += fi.Size()
		}
	}
	if total <= c.limit {
		return
	}
	slices.SortFunc(ents, func(a, b entry) int { return a.used.Compare(b.used) })
	for _, e := range ents {
		if total <= c.limit/4*3 {
			break
		}
		if os.Remove(e.path) == nil {
			total -= e.size
		}
	}
}

// cappedBuffer keeps what is written up to max bytes, and says whether
// more was written.
type cappedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if !b.over && b.buf.Len()+len(p) <= b.max {
		b.buf.Write(p)
	} else {
		b.over = true
		b.buf.Reset()
	}
	return len(p), nil
}

// readTestLog reads the test log at p, at most testLogMax bytes.
func readTestLog(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, testLogMax+1))
	if err != nil {
		return nil, err
	}
	if len(data) > testLogMax {
		return nil, fmt.Errorf("%w: a test log of more than %d bytes", errTestInputs, testLogMax)
	}
	return data, nil
}
