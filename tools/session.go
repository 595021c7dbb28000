package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/langserver"
	"github.com/autarch-dev/autarch/tools/verify"
	"github.com/autarch-dev/autarch/workspace"
)

// Mode is the confirmation policy of a session.
type Mode string

// Confirmation modes (spec/tool-engine.md).
const (
	ModeYolo             Mode = "yolo"
	ModeConfirmSensitive Mode = "confirm-sensitive"
	ModeConfirmAll       Mode = "confirm-all"
)

// ParseMode validates a confirmation mode name.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case ModeYolo, ModeConfirmSensitive, ModeConfirmAll:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown confirmation mode %q: use yolo, confirm-sensitive or confirm-all", s)
}

// SessionConfig configures one agent session's tool use.
type SessionConfig struct {
	// Root is the workspace or worktree directory every path is confined to.
	Root string
	// Role is the agent role ("discussion", "scoping", "research", "plan",
	// "preflight", "pulsing", "review"); it selects tool variants.
	Role string
	// Mode is the confirmation policy; DryRun records writes and commands
	// instead of doing them (reads still run).
	Mode   Mode
	DryRun bool
	// OnDryRun is told each call a dry run records (nil: none).
	OnDryRun func(DryRunEntry)
	// Editor is where confirmations are asked; nil means no one can be asked
	// (sensitive calls are then refused unless Mode is yolo).
	Editor editor.Client
	// Search backs semantic_search; nil means the project is not indexed.
	Search Searcher
	// Workflow is true in workflow channels (take_note is available).
	Workflow bool
	// StateDir keeps the per-workspace "always allow" answers ("" keeps them in memory).
	StateDir string
	// AllowDelete enables delete_file.
	AllowDelete bool
	// AllowedOnly refuses shell commands classified dangerous.
	AllowedOnly bool
	// Diagnostics supplies read_lints with the editor's diagnostics (nil:
	// the project's own checker).
	Diagnostics Diagnostics
	// SensitivePaths adds path globs to the secret gate.
	SensitivePaths []string
	// Commands says how shell commands are confined (sandbox, network).
	Commands CommandPolicy
	// GitCommonDir is the repository's git directory when Root is a linked
	// worktree (commands may write its objects and refs, never its config
	// or hooks); "" derives it from the worktree's .git file.
	GitCommonDir string
	// Protected are the guardrails' protected globs: commands see the
	// files they match read-only.
	Protected []string
	// Context is the job this session works for (coding-team-tools.md's
	// ToolContext): given to every tool, hook and log line of its calls.
	Context ToolContext
	// Egress is the secret filter of everything the session's calls send
	// out (a parent's, shared by its sub-agents); nil makes one over the
	// session's gate and DefaultEgressSources.
	Egress *Egress
	// LangServers are the language servers of the code intelligence tools,
	// shared by the sessions of a run (its owner shuts them down) and
	// configured by its repository; nil: the session starts its own (the
	// servers Autarch knows) on first use and Close stops them.
	LangServers *LangServers
	// Masks is what the secret-mask decisions of the run's sessions in
	// this tree know, shared so that a new session does not walk the tree
	// again (its owner closes it); nil: the session keeps its own.
	Masks *MaskState
}

// Note is one take_note entry.
type Note struct {
	Text string `json:"note"`
}

// Baseline is a known pre-existing issue recorded by record_baseline.
type Baseline struct {
	ID          string `json:"id"`
	IssueType   string `json:"issueType"`
	Source      string `json:"source"`
	Pattern     string `json:"pattern"`
	FilePath    string `json:"filePath,omitempty"`
	Description string `json:"description,omitempty"`
}

// Failure is a failed tool call remembered for completion validation.
type Failure struct {
	Seq     int
	Tool    string
	Summary string
	// Key identifies what failed (the shell command, the file edited); a
	// later successful call with the same key resolves the failure.
	Key string
}

// DryRunEntry is a write call or a command recorded instead of executed.
type DryRunEntry struct {
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	Reason string          `json:"reason"`
	// Action says what the call would have done ("would edit a.go:
	// replace 3 lines with 5", "would run `go test ./...` (dev)").
	Action string `json:"action"`
	// Path is the file the call would change ("" for commands and calls).
	Path string `json:"path,omitempty"`
	// Change is what would happen to Path, in short ("replace 1 line
	// with 2", "deleted").
	Change string `json:"change,omitempty"`
	// Stage names where in a workflow the call was made ("preflight",
	// "pulse pulse-1"; "" outside workflows).
	Stage string `json:"stage,omitempty"`
}

// Session is the per-agent-session state shared by tool calls.
type Session struct {
	cfg    SessionConfig
	root   *workspace.Root
	ignore *workspace.Ignore
	gate   *workspace.Gate
	egress *Egress

	mu        sync.Mutex
	read      map[string]bool
	notes     []Note
	baselines []Baseline
	failures  []Failure
	seq       int
	// onFailures is told the unresolved failures when they change.
	onFailures func([]Failure)
	dryRun     []DryRunEntry
	planned    map[string]string // files the dry run wrote or deleted
	always     map[string]bool
	written    map[string]bool
	touched    []string // files written by the running call (takeTouched)
	// guardrails are those of the engine that last called a tool of the
	// session: their protected globs, as reloaded, join cfg.Protected.
	guardrails atomic.Pointer[Guardrails]

	confine confinement
	lspOnce sync.Once
	lspOwn  *langserver.Pool // the session's own language servers (cfg.LangServers nil)

	// startGitCommonDir is the git directory of the repository Root was in
	// when the session started ("" for none): host git calls use it and
	// never one a command created since.
	startGitCommonDir string

	// lastReports are the last run_tests or run_lint call's reports.
	lastReports []verify.Report
}

// NewSession opens the root and starts a session.
func NewSession(cfg SessionConfig) (*Session, error) {
	if cfg.Mode == "" {
		cfg.Mode = ModeConfirmSensitive
	}
	if _, err := ParseMode(string(cfg.Mode)); err != nil {
		return nil, err
	}
	root, err := workspace.Open(cfg.Root)
	if err != nil {
		return nil, err
	}
	gate, err := workspace.NewGate(cfg.SensitivePaths...)
	if err != nil {
		root.Close()
		return nil, err
	}
	egress := cfg.Egress
	egress.Refresh() // a shared filter learns Autarch's credentials written since
	if egress == nil {
		// Its own filter: harvested at the first filtering, from grep's
		// walk when a grep came first (egress_listing.go).
		egress = newEgress(context.Background(), gate, DefaultEgressSources(cfg.Root, cfg.GitCommonDir), true)
		cfg.Egress = egress
	}
	s := &Session{cfg: cfg, root: root, ignore: workspace.NewIgnore(root), gate: gate, egress: egress, read: map[string]bool{}, planned: map[string]string{}, always: map[string]bool{}, written: map[string]bool{}}
	s.loadAlways()
	s.startGitCommonDir = cfg.GitCommonDir
	if s.startGitCommonDir == "" {
		s.startGitCommonDir = findGitCommonDir(root.Dir())
	}
	if !cfg.DryRun { // a dry run writes nothing, not even Autarch's own state
		gate.PersistVerdicts(workspace.VerdictDir(root.Dir(), s.startGitCommonDir))
	}
	return s, nil
}

// GitCommonDir is the git directory (the common one) of the repository the
// session's root was in when the session started: the configured
// GitCommonDir, else the nearest .git (directory, or file naming a
// worktree's git directory) from the root upwards at that moment; "" when
// there was none. Host git calls on the root name this repository, so a
// .git a command creates later is never obeyed.
func (s *Session) GitCommonDir() string { return s.startGitCommonDir }

// findGitCommonDir looks for the nearest .git from dir upwards, reading
// files only (no git process).
func findGitCommonDir(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		dotGit := filepath.Join(d, ".git")
		if fi, err := os.Lstat(dotGit); err == nil {
			if fi.IsDir() {
				return dotGit
			}
			if _, common, err := workspace.ReadGitFile(d); err == nil {
				return common
			}
			return ""
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// Close stops the session's own language servers and releases its root.
func (s *Session) Close() error {
	s.closeLangServers()
	s.confine.closeWatch()
	return errors.Join(s.gate.SaveVerdicts(), s.root.Close())
}

// Egress is the session's secret filter: every tool result, model
// request, stored call and update of the session passes it.
func (s *Session) Egress() *Egress { return s.egress }

// Root is the confined workspace.
func (s *Session) Root() *workspace.Root { return s.root }

// Config returns the session's configuration, as a session derived from
// this one takes it: with this session's mask state.
func (s *Session) Config() SessionConfig {
	cfg := s.cfg
	if cfg.Masks == nil {
		// A session derived from this one (a sub-agent's) shares its mask
		// state: their commands take turns in the tree (lockCommands).
		cfg.Masks = s.sharedMaskState()
	}
	return cfg
}

// MarkRead records that the session has seen a file's content.
func (s *Session) MarkRead(rel string) {
	s.mu.Lock()
	s.read[rel] = true
	s.mu.Unlock()
}

// WasRead reports whether the session read (or wrote) the file.
func (s *Session) WasRead(rel string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read[rel]
}

// AddNote stores a note.
func (s *Session) AddNote(text string) {
	s.mu.Lock()
	s.notes = append(s.notes, Note{Text: text})
	s.mu.Unlock()
}

// Notes returns the notes of the current stage.
func (s *Session) Notes() []Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.notes)
}

// ClearNotes drops the notes (on a stage transition).
func (s *Session) ClearNotes() {
	s.mu.Lock()
	s.notes = nil
	s.mu.Unlock()
}

// AddBaseline records a baseline and returns its id.
func (s *Session) AddBaseline(b Baseline) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	b.ID = fmt.Sprintf("baseline-%d", len(s.baselines)+1)
	s.baselines = append(s.baselines, b)
	return b.ID
}

// Baselines returns the recorded baselines.
func (s *Session) Baselines() []Baseline {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.baselines)
}

// SetBaselines replaces the baselines (a pulse inherits preflight's).
func (s *Session) SetBaselines(bs []Baseline) {
	s.mu.Lock()
	s.baselines = slices.Clone(bs)
	s.mu.Unlock()
}

// Mark returns a sequence number; FailuresSince(mark) lists later failures.
func (s *Session) Mark() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// recordCall counts a call of a write tool (edits, shell) for completion
// validation: a failure is remembered until a later successful call with
// the same key (the same command re-run, the same file edited) resolves it.
func (s *Session) recordCall(tool, key string, failed bool, summary string) {
	s.mu.Lock()
	s.seq++
	n := len(s.failures)
	if failed {
		s.failures = append(s.failures, Failure{Seq: s.seq, Tool: tool, Summary: summary, Key: key})
	} else {
		s.failures = slices.DeleteFunc(s.failures, func(f Failure) bool { return f.Key == key })
	}
	s.notifyFailures(n)
}

// notifyFailures, called with s.mu held, unlocks it and tells onFailures
// the unresolved failures when their number is no longer n.
func (s *Session) notifyFailures(n int) {
	changed, notify, now := len(s.failures) != n, s.onFailures, slices.Clone(s.failures)
	s.mu.Unlock()
	if changed && notify != nil {
		notify(now)
	}
}

// commandTools are the tools whose failures are commands' (a check a
// passing test run or gate run answers).
var commandTools = []string{"shell", "run_tests", "run_lint", "read_lints"}

// resolveCommandFailures drops the failed commands on record: the whole
// project's tests (or the quality gates) now pass, so what a failed
// command showed was fixed, or was no defect of the work (spec 004-58: a
// failure the agent fixed no longer blocks completion). Failed edits stay
// until the same file is written.
func (s *Session) resolveCommandFailures() {
	s.mu.Lock()
	n := len(s.failures)
	s.failures = slices.DeleteFunc(s.failures, func(f Failure) bool {
		return strings.HasPrefix(f.Key, "command:") || slices.Contains(commandTools, f.Tool)
	})
	s.notifyFailures(n)
}

// RestoreFailures seeds the unresolved failures of earlier runs (a resumed
// pulse is judged on its whole history).
func (s *Session) RestoreFailures(fs []Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range fs {
		s.seq++
		f.Seq = s.seq
		s.failures = append(s.failures, f)
	}
}

// OnFailures sets a function called with the unresolved failures whenever
// a call changes them (to persist them).
func (s *Session) OnFailures(fn func([]Failure)) {
	s.mu.Lock()
	s.onFailures = fn
	s.mu.Unlock()
}

// FailuresSince lists the unresolved failed calls after mark.
func (s *Session) FailuresSince(mark int) []Failure {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Failure
	for _, f := range s.failures {
		if f.Seq > mark {
			out = append(out, f)
		}
	}
	return out
}

// DryRunSummary lists the calls recorded during a dry run, in order
// (Summary puts them in words).
func (s *Session) DryRunSummary() Plan {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.dryRun)
}

func (s *Session) recordDryRun(e DryRunEntry) {
	s.mu.Lock()
	s.dryRun = append(s.dryRun, e)
	s.mu.Unlock()
	if s.cfg.OnDryRun != nil {
		s.cfg.OnDryRun(e)
	}
}

// alwaysFile is where "always allow" answers persist for this workspace.
func (s *Session) alwaysFile() string {
	if s.cfg.StateDir == "" {
		return ""
	}
	return filepath.Join(s.cfg.StateDir, "always-allow.json")
}

func (s *Session) loadAlways() {
	f := s.alwaysFile()
	if f == "" {
		return
	}
	data, err := os.ReadFile(f)
	if err != nil {
		return
	}
	var names []string
	if json.Unmarshal(data, &names) == nil {
		for _, n := range names {
			s.always[n] = true
		}
	}
}

// allowedAlways reports whether the user chose "always allow" for a key.
func (s *Session) allowedAlways(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.always[key]
}

// allowAlways remembers (and persists atomically) an "always allow" answer.
func (s *Session) allowAlways(key string) error {
	s.mu.Lock()
	s.always[key] = true
	names := make([]string, 0, len(s.always))
	for n := range s.always {
		names = append(names, n)
	}
	s.mu.Unlock()
	slices.Sort(names)
	f := s.alwaysFile()
	if f == "" || s.cfg.DryRun {
		return nil // a dry run leaves no trace: the answer holds for this session
	}
	data, _ := json.MarshalIndent(names, "", "  ")
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		return err
	}
	tmp := f + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, f)
}

func (s *Session) markWritten(rel string) {
	s.mu.Lock()
	s.written[rel] = true
	if !slices.Contains(s.touched, rel) {
		s.touched = append(s.touched, rel)
	}
	s.mu.Unlock()
}

// takeTouched returns the files written since it was last called, and
// forgets them.
func (s *Session) takeTouched() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.touched
	s.touched = nil
	return t
}

func (s *Session) wrote(rel string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written[rel]
}

func (s *Session) filesWritten() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.written)
}

// FilesWritten lists the files the session changed, sorted.
func (s *Session) FilesWritten() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.written))
	for f := range s.written {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// hookPath is the path hooks' file globs are matched on: clean and
// relative to the root ("./src/x.go" and "/abs/root/src/x.go" are
// "src/x.go"); as given when it cannot be cleaned.
func (s *Session) hookPath(p string) string {
	if p == "" {
		return ""
	}
	if rel, err := s.root.Clean(p); err == nil {
		return rel
	}
	return p
}
