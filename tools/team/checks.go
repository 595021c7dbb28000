package team

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/verify"
)

// checkCache remembers, per tree state, whether the whole project's
// run_tests and run_lint passed: commit_changes does not run them again on
// a tree they already judged.
type checkCache struct {
	mu     sync.Mutex
	status map[string]string // tool + "\x00" + tree state → status
	// reports are the runs' reports, by the same key, for the commit's
	// receipt.
	reports map[string][]verify.Report
	// unverified: the user allowed this job's commits without tests.
	unverified bool
	// base is the job's BaseCommit: whose .gitattributes are the user's
	// (treeState).
	base string
}

func (c *checkCache) unverifiedAllowed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unverified
}

func (c *checkCache) allowUnverified() {
	c.mu.Lock()
	c.unverified = true
	c.mu.Unlock()
}

func newCheckCache() *checkCache {
	return &checkCache{status: map[string]string{}, reports: map[string][]verify.Report{}}
}

func (c *checkCache) get(tool, state string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.status[tool+"\x00"+state]
	return s, ok
}

func (c *checkCache) put(tool, state string, res tools.Result, reports []verify.Report) {
	c.mu.Lock()
	c.status[tool+"\x00"+state] = statusOf(res)
	c.reports[tool+"\x00"+state] = reports
	c.mu.Unlock()
}

// report is the reports of the tool's run on the tree state.
func (c *checkCache) report(tool, state string) []verify.Report {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reports[tool+"\x00"+state]
}

// run runs a verification tool on the whole project (or takes its verdict
// on this tree state from the cache) and returns its status ("pass",
// "fail", "error") and its result.
func (c *checkCache) run(ctx context.Context, s *tools.Session, t tools.Tool, state string) (string, tools.Result, error) {
	if st, ok := c.get(t.Name(), state); ok {
		return st, tools.Result{}, nil
	}
	res, err := t.Run(ctx, s, json.RawMessage(`{"reason":"commit_changes verifies the tree before committing"}`))
	if err != nil {
		return "", res, err
	}
	c.put(t.Name(), state, res, s.LastReports())
	return statusOf(res), res, nil
}

// statusOf reads a run_tests/run_lint result's status.
func statusOf(res tools.Result) string {
	var r struct {
		Status string `json:"status"`
	}
	if json.Unmarshal([]byte(res.Output), &r) != nil || r.Status == "" {
		return "error"
	}
	return r.Status
}

// recording wraps run_tests or run_lint so that a whole-project run
// records its verdict for the tree state it ran on.
func (c *checkCache) recording(t tools.Tool) tools.Tool { return recorded{Tool: t, cache: c} }

type recorded struct {
	tools.Tool
	cache *checkCache
}

// Validate keeps the wrapped tool's schema check.
func (r recorded) Validate(args json.RawMessage) error {
	if v, ok := r.Tool.(interface{ Validate(json.RawMessage) error }); ok {
		return v.Validate(args)
	}
	return nil
}

func (r recorded) Run(ctx context.Context, s *tools.Session, args json.RawMessage) (tools.Result, error) {
	var scope struct {
		Path, Pattern string
		Fix           bool
	}
	json.Unmarshal(args, &scope)
	whole := (scope.Path == "" || scope.Path == ".") && scope.Pattern == "" && !scope.Fix
	var state string
	if whole {
		if w, err := openWorktree(ctx, s); err == nil {
			state, _ = w.treeState(ctx, r.cache.base)
		}
	}
	res, err := r.Tool.Run(ctx, s, args)
	if err == nil && state != "" {
		r.cache.put(r.Name(), state, res, s.LastReports())
	}
	return res, err
}

// treeState identifies the work tree's content without touching its
// index: HEAD, the diff of tracked files against it, the untracked, not
// ignored files' contents and, where the tree's .gitattributes are not
// base's, the raw bytes of the tracked files git's conversions would
// store otherwise (an edit a conversion takes back is no change to git
// diff, yet it is what the checks ran on: redteam s11 01).
func (w *worktree) treeState(ctx context.Context, base string) (string, error) {
	h := sha256.New()
	raw, err := w.repo.Unconverted(ctx, w.dir, base)
	if err != nil {
		return "", err
	}
	io.WriteString(h, raw)
	h.Write([]byte{0})
	for _, args := range [][]string{
		{"rev-parse", "--verify", "HEAD"},
		{"diff", "HEAD", "--binary", "--no-ext-diff", "--no-textconv"},
		{"ls-files", "-o", "--exclude-standard", "-z"},
	} {
		out, err := w.run(ctx, args...)
		if err != nil {
			return "", err
		}
		h.Write(out)
		h.Write([]byte{0})
		if args[0] == "ls-files" {
			for _, rel := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
				hashFile(h, filepath.Join(w.dir, filepath.FromSlash(rel)))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashFile adds a file's content (a symlink's target) to h; a file that
// cannot be read adds its error, so the state still differs.
func hashFile(h hash.Hash, name string) {
	fi, err := os.Lstat(name)
	switch {
	case err != nil:
		io.WriteString(h, err.Error())
	case fi.Mode()&os.ModeSymlink != 0:
		target, _ := os.Readlink(name)
		io.WriteString(h, "link:"+target)
	case fi.Mode().IsRegular():
		f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
		if err != nil {
			io.WriteString(h, err.Error())
			return
		}
		defer f.Close()
		io.Copy(h, f)
	}
	h.Write([]byte{0})
}
