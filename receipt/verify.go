package receipt

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/verify"
	"github.com/autarch-dev/autarch/workspace/git"
)

// GateFunc runs the quality gates on the work tree at dir for the changed
// files (relative to dir), filtering by baselines, confined as a pulse's
// gates are (SessionGates).
type GateFunc func(ctx context.Context, dir string, g verify.Gates, changed []string, baselines []tools.Baseline) (verify.GateRun, error)

// SessionGates runs the gates through a tools session on dir made from
// cfg (its Root is set to dir): the same sandbox, gate runner and
// baseline filter as the pulse's own gates.
func SessionGates(cfg tools.SessionConfig) GateFunc {
	return func(ctx context.Context, dir string, g verify.Gates, changed []string, baselines []tools.Baseline) (verify.GateRun, error) {
		c := cfg
		c.Root = dir
		sess, err := tools.NewSession(c)
		if err != nil {
			return verify.GateRun{}, fmt.Errorf("quality gates' session in %s: %w", dir, err)
		}
		defer sess.Close()
		sess.SetBaselines(baselines)
		run := sess.QualityGates(ctx, g, changed)
		return run, ctx.Err()
	}
}

// Options configure Verify.
type Options struct {
	// Gates runs the gates (required).
	Gates GateFunc
	// Config is the gates' configuration in force here (the trusted
	// configuration's, else the repository's read untrusted). Its
	// commands are the ones a recorded command must equal to run again;
	// the rest is compared with what the receipt recorded: a receipt that
	// says the gates were off while they are on here proves nothing.
	Config verify.Gates
}

// Result is what Verify found.
type Result struct {
	Commit  string  `json:"commit"`
	Receipt Receipt `json:"receipt"`
	// OK: the receipt is this commit's and every result holds.
	OK bool `json:"ok"`
	// Differences say what does not hold; Notes what changed without
	// breaking the receipt (a check that now also runs, and passes).
	Differences []string `json:"differences,omitempty"`
	Notes       []string `json:"notes,omitempty"`
	// Rerun are the checks as they ran again (none when the receipt does
	// not belong to the commit).
	Rerun      []Check `json:"rerun,omitempty"`
	DurationMS int64   `json:"durationMs"`
}

// Verify checks commit's receipt: that it names this commit, its tree and
// its parent, then runs the recorded gates again in a temporary worktree
// of the commit (removed afterwards) and compares each check's status,
// exit status and newly failing findings. A commit without a receipt is
// ErrNoReceipt; a Go error is broken infrastructure (git, the sandbox).
func Verify(ctx context.Context, repo *git.Repo, commit string, opt Options) (res Result, err error) {
	start := time.Now()
	full, err := repo.ResolveCommit(ctx, commit)
	if err != nil {
		return Result{}, err
	}
	rec, err := Read(ctx, repo, full)
	if err != nil {
		return Result{}, err
	}
	res = Result{Commit: full, Receipt: rec}
	defer func() { res.DurationMS = time.Since(start).Milliseconds() }()
	tree, parent, err := repo.TreeOf(ctx, full)
	if err != nil {
		return Result{}, err
	}
	if rec.Commit != full {
		res.Differences = append(res.Differences, fmt.Sprintf("the receipt is for commit %s, not %s: it was copied from another commit", rec.Commit, full))
	}
	if rec.Tree != tree {
		res.Differences = append(res.Differences, fmt.Sprintf("the commit's tree is %s, the receipt's %s: the files are not the ones the gates ran on", tree, rec.Tree))
	}
	if rec.Parent != parent {
		res.Differences = append(res.Differences, fmt.Sprintf("the commit's parent is %s, the receipt's %s", orNone(parent), orNone(rec.Parent)))
	}
	if len(res.Differences) > 0 {
		res.Notes = append(res.Notes, "the gates were not run again: the receipt does not belong to this commit")
		return res, nil
	}
	if here := gatesOf(opt.Config).describe(); here != rec.Gates.describe() {
		res.Notes = append(res.Notes, fmt.Sprintf("the receipt's gates (%s) differ from the configuration here (%s); the receipt's are run", rec.Gates.describe(), here))
	}
	if rec.Gates.Off {
		if !opt.Config.Off {
			res.Differences = append(res.Differences, "the receipt says the quality gates were turned off, but the configuration here runs them: nothing of this commit was checked")
			return res, nil
		}
		res.Notes = append(res.Notes, "the quality gates are turned off (here too): nothing to run again")
		res.OK = true
		return res, nil
	}
	if err := rerun(ctx, repo, &res, parent, opt); err != nil {
		return Result{}, err
	}
	res.OK = len(res.Differences) == 0
	return res, nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// rerun runs the gates again on a temporary worktree of res.Commit and
// compares.
func rerun(ctx context.Context, repo *git.Repo, res *Result, parent string, opt Options) (err error) {
	if opt.Gates == nil {
		return errors.New("receipt verify: no gate runner")
	}
	rec := res.Receipt
	dir, err := tempWorktreePath(repo, res.Commit)
	if err != nil {
		return err
	}
	if err := repo.EnsureLinkedWorktree(ctx, dir, res.Commit, ""); err != nil {
		return fmt.Errorf("receipt verify: worktree of %.12s: %w", res.Commit, err)
	}
	defer func() {
		if rmErr := repo.RemoveLinkedWorktree(context.WithoutCancel(ctx), dir); rmErr != nil {
			err = errors.Join(err, fmt.Errorf("receipt verify: remove the temporary worktree %s: %w", dir, rmErr))
		}
	}()
	changed := rec.Changed
	if parent != "" {
		// The files the commit changed, from git, never from the note: a
		// note that lists none would otherwise skip every check.
		if changed, err = repo.ChangedPaths(ctx, dir, parent); err != nil {
			return fmt.Errorf("receipt verify: %w", err)
		}
		if extra := minus(changed, rec.Changed); len(extra) > 0 {
			res.Notes = append(res.Notes, "the receipt's gates did not run for "+strings.Join(extra, ", ")+"; they do now")
		}
	}
	commands := map[verify.Kind]string{}
	for _, k := range slices.Sorted(maps.Keys(rec.Gates.Commands)) {
		cmd := rec.Gates.Commands[k]
		if opt.Config.Commands[k] == cmd {
			commands[k] = cmd
			continue
		}
		res.Differences = append(res.Differences, fmt.Sprintf("the %s gate's command %q is not in the configuration you trust here, so it was not run again: review .autarch/config.yaml and run autarch trust, then verify again", k, cmd))
	}
	run, err := opt.Gates(ctx, dir, rec.Gates.gates(commands), changed, rec.Baseline.Items)
	if err != nil {
		return fmt.Errorf("receipt verify: %w", err)
	}
	// The gates ran the commit's own code (its tests, its build steps),
	// which may write the checkout: a test that repairs a broken file
	// before the package holding it is compiled makes the gates pass
	// over a commit that does not build. What they tested must be the
	// commit.
	moved, err := repo.ChangedPaths(ctx, dir, res.Commit)
	if err != nil {
		return fmt.Errorf("receipt verify: %w", err)
	}
	if len(moved) > 0 {
		res.Differences = append(res.Differences, fmt.Sprintf("the gates' commands changed %s of the commit while they ran (a test or a build step writes the project's own files), so what they tested is not the commit: its checks prove nothing until its tests write under a temporary folder", strings.Join(moved, ", ")))
	}
	res.Rerun, _ = checksOf(run, rec.Baseline.Items)
	res.Differences = append(res.Differences, compare(rec.Checks, res.Rerun, &res.Notes)...)
	return nil
}

// tempWorktreePath is a fresh path for a verification worktree, under the
// repository's worktree root (outside the user's folder).
func tempWorktreePath(repo *git.Repo, commit string) (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("receipt verify: %w", err)
	}
	dir := filepath.Join(repo.WorktreeRoot(), ".receipts", fmt.Sprintf("%.12s-%s", commit, hex.EncodeToString(b[:])))
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", fmt.Errorf("receipt verify: %w", err)
	}
	return dir, nil
}

func checkKey(c Check) string { return string(c.Kind) + "\x00" + c.Name + "\x00" + c.Dir }

func (c Check) label() string { return fmt.Sprintf("%s gate %s in %s", c.Kind, c.Name, c.Dir) }

// compare lists what of the recorded checks does not hold in the re-run.
func compare(recorded, now []Check, notes *[]string) []string {
	var diffs []string
	byKey := map[string]Check{}
	for _, c := range now {
		byKey[checkKey(c)] = c
	}
	seen := map[string]bool{}
	for _, r := range recorded {
		k := checkKey(r)
		seen[k] = true
		n, ok := byKey[k]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("%s was not run again (the changed files or the project's checks differ): `%s`", r.label(), r.Command))
			continue
		}
		if n.Status != r.Status {
			d := fmt.Sprintf("%s: recorded %s, now %s", r.label(), r.Status, n.Status)
			if n.Error != "" {
				d += ": " + firstLine(n.Error)
			}
			diffs = append(diffs, d)
		}
		if (n.ExitCode == 0) != (r.ExitCode == 0) {
			diffs = append(diffs, fmt.Sprintf("%s: `%s` exited %d, recorded %d", r.label(), n.Command, n.ExitCode, r.ExitCode))
		}
		if n.Command != r.Command {
			*notes = append(*notes, fmt.Sprintf("%s ran `%s` (recorded `%s`)", r.label(), n.Command, r.Command))
		}
		for _, f := range missing(n.NewlyFailing, r.NewlyFailing) {
			diffs = append(diffs, fmt.Sprintf("%s: newly failing now: %s", r.label(), f.describe()))
		}
		for _, f := range missing(r.NewlyFailing, n.NewlyFailing) {
			diffs = append(diffs, fmt.Sprintf("%s: recorded as failing, passes now: %s", r.label(), f.describe()))
		}
	}
	for _, n := range now {
		if seen[checkKey(n)] {
			continue
		}
		if n.Status != verify.StatusPass {
			diffs = append(diffs, fmt.Sprintf("%s (not in the receipt) %s now: %s", n.label(), n.Status, describeAll(n)))
			continue
		}
		*notes = append(*notes, fmt.Sprintf("%s (not in the receipt) ran and passed", n.label()))
	}
	return diffs
}

// missing are the findings of a whose signature b lacks.
func missing(a, b []Finding) []Finding {
	have := signatures(b)
	var out []Finding
	for _, f := range a {
		if _, ok := slices.BinarySearch(have, f.Signature); !ok {
			out = append(out, f)
		}
	}
	return out
}

func (f Finding) describe() string {
	var b strings.Builder
	switch {
	case f.Test != "":
		b.WriteString(f.Test)
	case f.Rule != "":
		b.WriteString(f.Rule)
	}
	if f.File != "" {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		b.WriteString("(" + f.File)
		if f.Line > 0 {
			fmt.Fprintf(&b, ":%d", f.Line)
		}
		b.WriteString(")")
	}
	if m := firstLine(f.Message); m != "" {
		b.WriteString(": " + m)
	}
	return fmt.Sprintf("%s [%s]", b.String(), f.Signature)
}

func describeAll(c Check) string {
	if c.Error != "" {
		return firstLine(c.Error)
	}
	parts := make([]string, 0, len(c.NewlyFailing))
	for _, f := range c.NewlyFailing {
		parts = append(parts, f.describe())
	}
	return strings.Join(parts, "; ")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// minus are the elements of a not in b.
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
