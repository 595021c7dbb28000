// Package receipt writes, reads and re-checks completion receipts (issue
// 32): what the quality gates found when Autarch committed a checkpoint,
// kept as a git note on the commit (git.NotesRef) so that anyone with the
// repository — another machine, CI — can read it and run the gates again.
//
// A receipt names the commit, its tree and its first parent; each gate
// command run with its exit status and duration; the failing tests and
// lint findings by a stable signature, split into newly failing and
// pre-existing (with the baseline each matched), the baselines that no
// longer fail (newly passing) and the commit the baselines were recorded
// on; and the version of Autarch that wrote it. It is JSON with a schema
// version (Version).
//
// A note proves nothing by itself: anyone who can push can write one.
// Verify therefore ties it to the commit and tree it names (a note copied
// to another commit, or a commit rewritten under its note, fails) and runs
// the gates again, in the sandbox, on a temporary worktree of the commit,
// with the changed files read from git rather than from the note. Only
// gate commands the user trusts here run: a receipt cannot make Verify run
// a command of its own.
//
// Revert commits (issue 32's revert verb) carry no receipt: they restore a
// tree an earlier receipt already covers, and the next checkpoint gets one.
package receipt

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/verify"
	"github.com/autarch-dev/autarch/workspace/git"
)

// Version is the receipt schema this package writes and reads. A receipt
// of a later version is refused (upgrade Autarch to read it).
const Version = 1

// Kind is what kind of commit a receipt is on.
type Kind string

// Kinds of commits that carry receipts.
const (
	Pulse      Kind = "pulse"       // a workflow pulse's checkpoint
	Job        Kind = "job"         // a job's commit_changes commit
	SwarmRound Kind = "swarm-round" // a swarm round's commit
)

// Run says which run made the commit.
type Run struct {
	// Kind is "workflow", "job" or "swarm".
	Kind string `json:"kind"`
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
	// Step is the pulse's plan id ("pulse-2") or the swarm's round.
	Step string `json:"step,omitempty"`
}

// Receipt is a checkpoint's completion receipt.
type Receipt struct {
	// Version is the schema version (Version).
	Version int  `json:"version"`
	Kind    Kind `json:"kind"`
	// Commit, Tree and Parent are the commit the receipt is for, its tree
	// and its first parent (full hashes).
	Commit string `json:"commit"`
	Tree   string `json:"tree"`
	Parent string `json:"parent,omitempty"`
	Run    Run    `json:"run"`
	// Autarch is the version of Autarch that wrote it.
	Autarch string    `json:"autarch"`
	Created time.Time `json:"created"`
	// Gates is the gates' configuration the run used.
	Gates Gates `json:"gates"`
	// Changed are the files the gates ran for.
	Changed []string `json:"changed,omitempty"`
	// Skipped says why no check ran ("" when some did).
	Skipped string `json:"skipped,omitempty"`
	// Checks are the gate commands run, in order.
	Checks []Check `json:"checks"`
	// NewlyPassing are the baselines no check matched any more: failures
	// recorded before the run's changes that now pass.
	NewlyPassing []Finding `json:"newlyPassing,omitempty"`
	// Baseline is what the findings were matched against.
	Baseline Baseline `json:"baseline"`
	// DurationMS is the whole gate run's wall time.
	DurationMS int64 `json:"durationMs"`
}

// Gates is the gates' configuration, as verify.Gates.
type Gates struct {
	Off       bool                   `json:"off,omitempty"`
	Kinds     []verify.Kind          `json:"kinds,omitempty"`
	Full      bool                   `json:"full,omitempty"`
	Paths     []string               `json:"paths,omitempty"`
	Commands  map[verify.Kind]string `json:"commands,omitempty"`
	TimeoutMS int64                  `json:"timeoutMs,omitempty"`
}

// Baseline is the set of pre-existing failures findings were matched
// against, and the commit they were recorded on ("" when unknown).
type Baseline struct {
	Commit string           `json:"commit,omitempty"`
	Items  []tools.Baseline `json:"items,omitempty"`
}

// Check is one gate command as it ran.
type Check struct {
	Name       string      `json:"name"` // "go test", "configured test", …
	Kind       verify.Kind `json:"kind"`
	Dir        string      `json:"dir"`
	Command    string      `json:"command"`
	ExitCode   int         `json:"exitCode"`
	Status     string      `json:"status"` // pass, fail, error
	Error      string      `json:"error,omitempty"`
	DurationMS int64       `json:"durationMs"`
	Passed     int         `json:"passed"`
	Failed     int         `json:"failed"`
	Skipped    int         `json:"skipped"`
	// NewlyFailing are the failures and error findings no baseline
	// explains; PreExisting those a baseline does.
	NewlyFailing []Finding `json:"newlyFailing,omitempty"`
	PreExisting  []Finding `json:"preExisting,omitempty"`
}

// Finding is a failing test or a lint or compiler finding.
type Finding struct {
	// Signature identifies the finding across runs: its check, kind,
	// file and test name or rule and message, without line numbers or
	// timings.
	Signature string `json:"signature"`
	Test      string `json:"test,omitempty"`
	Rule      string `json:"rule,omitempty"`
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Message   string `json:"message,omitempty"`
	// Baseline is the id of the baseline a pre-existing finding matched
	// (or, for a newly passing one, the baseline itself).
	Baseline string `json:"baseline,omitempty"`
}

// Subject is what a receipt is written for.
type Subject struct {
	Kind   Kind
	Commit string
	Run    Run
	// Gates is the configuration the gate run used.
	Gates verify.Gates
	// Baselines are the pre-existing failures the run filtered, recorded
	// on BaselineCommit.
	Baselines      []tools.Baseline
	BaselineCommit string
}

// ErrNoReceipt is Read's and Verify's answer for a commit without one.
var ErrNoReceipt = errors.New("the commit has no receipt")

// New builds the receipt of a gate run for a commit.
func New(ctx context.Context, repo *git.Repo, s Subject, run verify.GateRun) (Receipt, error) {
	commit, err := repo.ResolveCommit(ctx, s.Commit)
	if err != nil {
		return Receipt{}, fmt.Errorf("receipt: %w", err)
	}
	tree, parent, err := repo.TreeOf(ctx, commit)
	if err != nil {
		return Receipt{}, fmt.Errorf("receipt: %w", err)
	}
	r := Receipt{Version: Version, Kind: s.Kind, Commit: commit, Tree: tree, Parent: parent, Run: s.Run, Autarch: AutarchVersion(),
		Created: time.Now().UTC().Truncate(time.Second), Gates: gatesOf(s.Gates), Changed: run.Changed, Skipped: run.Skipped,
		Baseline: Baseline{Commit: s.BaselineCommit, Items: s.Baselines}, DurationMS: run.Duration.Milliseconds()}
	r.Checks, r.NewlyPassing = checksOf(run, s.Baselines)
	return r, nil
}

// Record builds the receipt of a gate run for a commit and writes it as
// the commit's note.
func Record(ctx context.Context, repo *git.Repo, s Subject, run verify.GateRun) (Receipt, error) {
	r, err := New(ctx, repo, s, run)
	if err != nil {
		return Receipt{}, err
	}
	return r, Write(ctx, repo, r)
}

// Write stores r as the note of r.Commit (replacing one it had).
func Write(ctx context.Context, repo *git.Repo, r Receipt) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("receipt: %w", err)
	}
	if err := repo.AddNote(ctx, r.Commit, append(data, '\n')); err != nil {
		return fmt.Errorf("receipt: %w", err)
	}
	return nil
}

// Read returns commit's receipt: ErrNoReceipt when it has none; an error
// naming the problem when its note is not a receipt this version reads.
func Read(ctx context.Context, repo *git.Repo, commit string) (Receipt, error) {
	data, ok, err := repo.Note(ctx, commit)
	if err != nil {
		return Receipt{}, fmt.Errorf("receipt: %w", err)
	}
	if !ok {
		return Receipt{}, fmt.Errorf("%s: %w (fetch the receipts with: git fetch origin %s)", commit, ErrNoReceipt, git.NotesRefspec)
	}
	return Parse(data)
}

// Parse reads a receipt from a note's content.
func Parse(data []byte) (Receipt, error) {
	var r Receipt
	if err := json.Unmarshal(data, &r); err != nil {
		return Receipt{}, fmt.Errorf("the note is not a receipt: %w", err)
	}
	switch {
	case r.Version <= 0 || r.Commit == "" || r.Tree == "":
		return Receipt{}, errors.New("the note is not a receipt: it has no version, commit or tree")
	case r.Version > Version:
		return Receipt{}, fmt.Errorf("the receipt is of version %d, written by Autarch %s; this Autarch reads version %d: upgrade Autarch", r.Version, r.Autarch, Version)
	}
	return r, nil
}

// AutarchVersion is this binary's version as the Go toolchain stamped it:
// the module version (a tag, or a pseudo-version of the commit it was
// built from) and the commit, "+dirty" when built from a modified tree.
func AutarchVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" && !strings.Contains(v, rev[:min(12, len(rev))]) {
		v += " " + rev[:min(12, len(rev))] + dirty
	}
	return v
}

func gatesOf(g verify.Gates) Gates {
	return Gates{Off: g.Off, Kinds: g.Kinds, Full: g.Full, Paths: g.Paths, Commands: g.Commands, TimeoutMS: g.Timeout.Milliseconds()}
}

// gates is the configuration to run again; commands only as given.
func (g Gates) gates(commands map[verify.Kind]string) verify.Gates {
	return verify.Gates{Off: g.Off, Kinds: g.Kinds, Full: g.Full, Paths: g.Paths, Commands: commands, Timeout: time.Duration(g.TimeoutMS) * time.Millisecond}
}

// maxMessage bounds a finding's message in a receipt.
const maxMessage = 400

// checksOf turns a gate run into checks and the baselines that no longer
// fail.
func checksOf(run verify.GateRun, baselines []tools.Baseline) ([]Check, []Finding) {
	checks := make([]Check, 0, len(run.Reports))
	matched := map[string]bool{}
	ran := map[verify.Kind]bool{}
	for _, r := range run.Reports {
		c := Check{Name: r.Check, Kind: r.Kind, Dir: r.Dir, Command: r.Command, ExitCode: r.ExitCode, Status: r.Status, Error: r.Error,
			DurationMS: r.Duration.Milliseconds(), Passed: r.Passed, Failed: r.Failed, Skipped: r.Skipped}
		if r.Status != verify.StatusError {
			ran[r.Kind] = true
		}
		for _, f := range r.Failures {
			c.NewlyFailing = append(c.NewlyFailing, testFinding(r, f))
		}
		for _, i := range r.Issues {
			if i.Severity == "error" {
				c.NewlyFailing = append(c.NewlyFailing, issueFinding(r, i))
			}
		}
		for _, f := range r.PreExistingFailures {
			fd := testFinding(r, f)
			fd.Baseline = matchBaseline(baselines, f.File, f.Name+"\n"+f.Message)
			matched[fd.Baseline] = true
			c.PreExisting = append(c.PreExisting, fd)
		}
		for _, i := range r.PreExistingIssues {
			fd := issueFinding(r, i)
			fd.Baseline = matchBaseline(baselines, i.File, i.Rule+" "+i.Message)
			matched[fd.Baseline] = true
			c.PreExisting = append(c.PreExisting, fd)
		}
		checks = append(checks, c)
	}
	var passing []Finding
	for _, b := range baselines {
		if matched[b.ID] || !ran[sourceKind(b.Source)] {
			continue
		}
		passing = append(passing, Finding{Signature: signature("baseline", b.Source, b.FilePath, b.Pattern), File: b.FilePath,
			Message: clip(b.Pattern), Baseline: b.ID})
	}
	return checks, passing
}

func sourceKind(source string) verify.Kind {
	return verify.Kind(strings.ToLower(source))
}

// matchBaseline is the id of the first baseline that explains a finding
// ("" when none does: it was matched across sources, as Filter does).
func matchBaseline(bs []tools.Baseline, file, text string) string {
	for _, b := range bs {
		vb := verify.Baseline{Source: b.Source, Pattern: b.Pattern, FilePath: b.FilePath}
		if vb.Matches(file, text) {
			if b.ID == "" {
				return b.Pattern
			}
			return b.ID
		}
	}
	// A build failure is pre-existing when each of its compiler errors
	// is; name the first baseline one of them matched.
	for _, b := range bs {
		if b.Pattern != "" && strings.Contains(text, b.Pattern) {
			if b.ID == "" {
				return b.Pattern
			}
			return b.ID
		}
	}
	return ""
}

func testFinding(r verify.Report, f verify.TestFailure) Finding {
	return Finding{Signature: signature("test", r.Check, r.Dir, f.File, f.Name), Test: f.Name, File: f.File, Line: f.Line, Message: clip(f.Message)}
}

func issueFinding(r verify.Report, i verify.Issue) Finding {
	return Finding{Signature: signature("issue", r.Check, r.Dir, i.File, i.Rule, i.Message), Rule: i.Rule, File: i.File, Line: i.Line, Message: clip(i.Message)}
}

// signature is a finding's stable identity: a hash of its parts (no line
// numbers, timings or output).
func signature(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:8])
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// signatures lists the signatures of findings, sorted.
func signatures(fs []Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Signature
	}
	slices.Sort(out)
	return slices.Compact(out)
}
