package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/autarch-dev/autarch/tools/shellcmd"
	"github.com/autarch-dev/autarch/workspace/unidiff"
)

// GuardrailsFile is the repository file that configures guardrails (JSON).
const GuardrailsFile = ".autarch/guardrails"

// Guardrails are deterministic rules checked before hooks; the model cannot
// turn them off. The exported fields are the configuration as decoded; once
// the guardrails are shared, Replace swaps them (every holder of the
// pointer sees the new rules) and the checks read them under a lock.
type Guardrails struct {
	// Protected are globs of files no tool may write, edit or delete
	// (.git/**, .autarch/hooks and .autarch/guardrails always are).
	Protected []string `json:"protected,omitempty" yaml:"protected"`
	// BlockedCommands are extra regular expressions refused for shell.
	BlockedCommands []string `json:"blocked_commands,omitempty" yaml:"blocked_commands"`
	// MaxLinesChanged caps the lines one write/edit call may add plus remove (0: no cap).
	MaxLinesChanged int `json:"max_lines_changed,omitempty" yaml:"max_lines_changed"`
	// MaxFilesChanged caps how many files one session may write (0: no cap).
	MaxFilesChanged int `json:"max_files_changed,omitempty" yaml:"max_files_changed"`
	// CodeRules are regexes written content must not match.
	CodeRules []CodeRule `json:"code_rules,omitempty" yaml:"code_rules"`
	// QualityGates configures the gates run at a pulse's completion
	// (config.yaml only; see QualityGates).
	QualityGates *QualityGates `json:"-" yaml:"quality_gates"`

	mu         sync.RWMutex
	blockedREs []*regexp.Regexp
	// quality is the gates' configuration as resolved with the project's
	// trust (nil: none was, as for guardrails read alone).
	quality *Quality
}

// rules is one consistent view of the guardrails' rules, taken under the
// lock: a check judges a call by one version of the configuration.
type rules struct {
	protected []string
	blocked   []*regexp.Regexp
	// blockedSrc are the blocked patterns as configured.
	blockedSrc []string
	maxLines   int
	maxFiles   int
	codeRules  []CodeRule
}

// rules is the current view (none for nil guardrails).
func (g *Guardrails) rules() rules {
	if g == nil {
		return rules{}
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	return rules{protected: g.Protected, blocked: g.blockedREs, blockedSrc: g.BlockedCommands,
		maxLines: g.MaxLinesChanged, maxFiles: g.MaxFilesChanged, codeRules: g.CodeRules}
}

// Replace puts now's restrictive rules (protected paths, blocked commands,
// the caps, code rules) in force for every holder of g (the configuration
// changed while sessions run; nil now: only the built-in protections).
// The quality gates are left alone: their commands switch with SetQuality,
// from trusted content only.
func (g *Guardrails) Replace(now *Guardrails) {
	if g == nil {
		return
	}
	r := now.rules()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.Protected, g.BlockedCommands, g.blockedREs = r.protected, r.blockedSrc, r.blocked
	g.MaxLinesChanged, g.MaxFilesChanged, g.CodeRules = r.maxLines, r.maxFiles, r.codeRules
}

// Quality is the quality gates' configuration resolved with the guardrails
// (LoadProject: commands only from trusted content); ok is false when none
// was.
func (g *Guardrails) Quality() (q Quality, ok bool) {
	if g == nil {
		return Quality{}, false
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.quality == nil {
		return Quality{}, false
	}
	return *g.quality, true
}

// SetQuality puts q in force as the quality gates' configuration for every
// holder of g. Its commands must come from trusted content (LoadProject's
// Quality drops the others).
func (g *Guardrails) SetQuality(q Quality) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.quality = &q
}

// CodeRule forbids a pattern in written content (optionally only in some files).
type CodeRule struct {
	Pattern string   `json:"pattern" yaml:"pattern"`
	Message string   `json:"message" yaml:"message"`
	Files   []string `json:"files,omitempty" yaml:"files"`

	re *regexp.Regexp
}

// alwaysProtected are the globs no tool may write, whatever the
// configuration: git's own files (config, hooks: a planted core.fsmonitor or
// hook runs on the next git command) and Autarch's configuration (hooks,
// guardrails, servers).
func alwaysProtected() []string {
	return []string{".git", ".git/**", "**/.git", "**/.git/**", ".autarch", ".autarch/**", ".mcp.json"}
}

// LoadGuardrails reads the legacy .autarch/guardrails (JSON) in dir; a
// missing file means the defaults. Sessions read guardrails with
// LoadProject, from ConfigFile's guardrails key first.
func LoadGuardrails(dir string) (*Guardrails, error) {
	g := &Guardrails{}
	data, err := readConfig(dir, GuardrailsFile)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("reading %s: %w", GuardrailsFile, err)
	}
	if err == nil {
		if err := json.Unmarshal(data, g); err != nil {
			return nil, fmt.Errorf("%s: %w (expected {\"protected\", \"blocked_commands\", \"max_lines_changed\", \"max_files_changed\", \"code_rules\"})", GuardrailsFile, err)
		}
	}
	if err := g.compile(); err != nil {
		return nil, fmt.Errorf("%s: %w", GuardrailsFile, err)
	}
	return g, nil
}

// compile checks the patterns and compiles the expressions.
func (g *Guardrails) compile() error {
	for _, p := range g.Protected {
		if !doublestar.ValidatePattern(p) {
			return fmt.Errorf("invalid protected pattern %q", p)
		}
	}
	g.blockedREs = nil
	for _, b := range g.BlockedCommands {
		re, err := regexp.Compile(b)
		if err != nil {
			return fmt.Errorf("blocked command %q: %w", b, err)
		}
		g.blockedREs = append(g.blockedREs, re)
	}
	for i := range g.CodeRules {
		re, err := regexp.Compile(g.CodeRules[i].Pattern)
		if err != nil {
			return fmt.Errorf("code rule %q: %w", g.CodeRules[i].Pattern, err)
		}
		for _, f := range g.CodeRules[i].Files {
			if !doublestar.ValidatePattern(f) {
				return fmt.Errorf("code rule %q: invalid file pattern %q", g.CodeRules[i].Pattern, f)
			}
		}
		g.CodeRules[i].re = re
	}
	return nil
}

// writeArgs is what the guardrails read from a write tool's arguments.
type writeArgs struct {
	Path       string          `json:"path"`
	Content    *string         `json:"content"`
	OldString  string          `json:"oldString"`
	NewString  string          `json:"newString"`
	Edits      []EditOperation `json:"edits"`
	Patch      string          `json:"patch"`
	ReplaceAll bool            `json:"replaceAll"`
	Command    string          `json:"command"`
}

// check returns a reason to refuse the call, or "". Paths are judged by
// where they lead (symlinks followed), contents by the file as it would be
// after the call, commands by every simple command of their syntax tree.
// The call is judged by the rules in force when it is made.
func (g *Guardrails) check(s *Session, t Tool, args json.RawMessage) string {
	return g.rules().check(s, t, args)
}

func (r rules) check(s *Session, t Tool, args json.RawMessage) string {
	var a writeArgs
	json.Unmarshal(args, &a)
	if t.Name() == "shell" {
		return r.checkCommand(a.Command)
	}
	if t.Kind() == Write && a.Path == "" && a.Patch != "" {
		return r.checkPatch(s, a.Patch)
	}
	if t.Kind() != Write || a.Path == "" {
		return ""
	}
	rel, err := s.root.Clean(a.Path)
	if err != nil {
		return "" // the tool reports the path error itself
	}
	if msg := r.checkProtected(s, rel); msg != "" {
		return msg
	}
	added, removed, result, ok := changeOf(s, t.Name(), rel, a)
	if r.maxLines > 0 && added+removed > r.maxLines {
		return fmt.Sprintf("this change adds %d and removes %d lines, over the limit of %d per call; split it into smaller edits", added, removed, r.maxLines)
	}
	if r.maxFiles > 0 && !s.wrote(rel) && s.filesWritten() >= r.maxFiles {
		return fmt.Sprintf("this session already changed %d files, the limit", r.maxFiles)
	}
	if !ok {
		return "" // the edit does not apply; the tool says why
	}
	return r.codeRuleBroken(rel, result)
}

// CodeRuleBroken is the message of the first code rule that content, the
// whole of file rel as it would be written, breaks ("" when none does).
func (g *Guardrails) CodeRuleBroken(rel, content string) string {
	return g.rules().codeRuleBroken(rel, content)
}

func (r rules) codeRuleBroken(rel, content string) string {
	for _, c := range r.codeRules {
		if matchesFiles(c.Files, rel) && c.re.MatchString(content) {
			return c.Message
		}
	}
	return ""
}

// checkPatch judges a multi-file patch (the coding team's apply_patch,
// which names its files in the patch) file by file: protected paths, the
// lines changed per file and the code rules on each file as patched. A
// patch that does not parse or apply is left to the tool to report.
func (r rules) checkPatch(s *Session, patch string) string {
	files, err := unidiff.ParsePatch(patch)
	if err != nil {
		return ""
	}
	for _, f := range files {
		for _, p := range []string{f.OldPath, f.NewPath} {
			if rel, err := s.root.Clean(p); err == nil && p != "" {
				if msg := r.checkProtected(s, rel); msg != "" {
					return msg
				}
			}
		}
		rel, err := s.root.Clean(f.NewPath)
		if f.NewPath == "" || err != nil {
			continue
		}
		if r.maxLines > 0 && f.LinesChanged() > r.maxLines {
			return fmt.Sprintf("this patch changes %d lines of %s, over the limit of %d per call; split it into smaller patches", f.LinesChanged(), f.NewPath, r.maxLines)
		}
		var old []byte
		if src, err := s.root.Clean(f.OldPath); err == nil && !f.Created {
			old, _ = s.root.ReadFile(src)
		}
		result, err := unidiff.Apply(string(old), f.Edits)
		if err != nil {
			continue
		}
		if msg := r.codeRuleBroken(rel, result); msg != "" {
			return msg
		}
	}
	return ""
}

// checkProtected refuses a write to a protected path, written or resolved.
func (r rules) checkProtected(s *Session, rel string) string {
	paths := []string{rel}
	if real, err := s.root.Resolve(rel); err == nil && real != rel {
		paths = append(paths, real)
	}
	for _, p := range append(alwaysProtected(), r.protected...) {
		for _, x := range paths {
			if m, _ := doublestar.Match(p, x); m {
				if x != rel {
					return fmt.Sprintf("%s leads to %s, which is protected (%s)", rel, x, p)
				}
				return fmt.Sprintf("%s is protected (%s)", rel, p)
			}
		}
	}
	return ""
}

// checkCommand refuses a command any of whose simple commands, normalised
// (quotes, escapes, $IFS, wrappers and globbed names seen through),
// matches a blocked pattern, and, when there are blocked patterns, a
// command whose name is only known at run time, which no pattern can judge.
func (r rules) checkCommand(command string) string {
	if len(r.blocked) == 0 {
		return ""
	}
	if re, form := shellcmd.FirstMatch(command, r.blocked); re != nil {
		return fmt.Sprintf("command matches the blocked pattern %s (as %q): the project's blocked_commands refuse it in every mode; "+
			"do not retry it spelled another way, do the task without it or ask the user", re, form)
	}
	if name := shellcmd.Analyze(command).UnknownName(); name != "" {
		return fmt.Sprintf("the command name %s is only known at run time, so it cannot be checked against the project's "+
			"blocked_commands: write the command name out", name)
	}
	return ""
}

// ProtectedPaths are the configured protected globs: sessions give them to
// SessionConfig.Protected so that commands see what they match read-only
// (.git and .autarch always are).
func (g *Guardrails) ProtectedPaths() []string { return slices.Clone(g.rules().protected) }

// protectedGlobs are the session's Protected globs and those of the
// guardrails of the engine calling its tools, as they are now (a
// configuration reloaded while the session runs protects at once).
func (s *Session) protectedGlobs() []string {
	return append(slices.Clone(s.cfg.Protected), s.guardrails.Load().ProtectedPaths()...)
}

// CodeRuleBroken is the message of the first code rule of the guardrails
// the session's calls run under that content, the whole of file rel as it
// would be written, breaks ("" when none does, or no guardrails apply):
// for tools that propose writes rather than make them (the swarm's
// fs_write), which the engine's write checks do not judge.
func (s *Session) CodeRuleBroken(rel, content string) string {
	return s.guardrails.Load().CodeRuleBroken(rel, content)
}

// changeOf computes what a write call does to its file: the lines it adds
// and removes, and the whole file as it would be after the call (code rules
// judge the result, not the inserted text: a rule against "panic(" must
// catch an edit that joins "pan" and "ic("). ok is false when the edit does
// not apply to the current content.
func changeOf(s *Session, tool, rel string, a writeArgs) (added, removed int, result string, ok bool) {
	lines := func(x string) int {
		if x == "" {
			return 0
		}
		return strings.Count(x, "\n") + 1
	}
	oldBytes, _ := s.root.ReadFile(rel)
	old := string(oldBytes)
	switch {
	case a.Content != nil:
		return lines(*a.Content), lines(old), *a.Content, true
	case len(a.Edits) > 0:
		for _, e := range a.Edits {
			added += lines(e.NewString)
			removed += lines(e.OldString)
		}
		updated, _, ok := applyEdits(old, a.Edits)
		return added, removed, updated, ok
	case a.Patch != "":
		added, removed = patchCounts(a.Patch)
		files, err := parsePatch(a.Patch)
		if err != nil || len(files) != 1 {
			return added, removed, "", false
		}
		updated, err := applyHunks(old, files[0].hunks)
		return added, removed, updated, err == nil
	case tool == "edit_file" && a.OldString != "":
		updated, _, err := applyEdit(old, a.OldString, a.NewString, a.ReplaceAll)
		return lines(a.NewString), lines(a.OldString), updated, err == nil
	}
	return lines(a.NewString), lines(a.OldString), old, false
}

// readConfig reads a repository configuration file through an os.Root, so
// a symlink out of the repository is refused, not followed.
func readConfig(dir, name string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.ReadFile(filepath.FromSlash(name))
}
