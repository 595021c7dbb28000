package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// GuardrailsFile is the repository file that configures guardrails (JSON).
const GuardrailsFile = ".autarch/guardrails"

// Guardrails are deterministic rules checked before hooks; the model cannot
// turn them off.
type Guardrails struct {
	// Protected are globs of files no tool may write, edit or delete
	// (.git/**, .autarch/hooks and .autarch/guardrails always are).
	Protected []string `json:"protected,omitempty"`
	// BlockedCommands are extra regular expressions refused for shell.
	BlockedCommands []string `json:"blocked_commands,omitempty"`
	// MaxLinesChanged caps the lines one write/edit call may add plus remove (0: no cap).
	MaxLinesChanged int `json:"max_lines_changed,omitempty"`
	// MaxFilesChanged caps how many files one session may write (0: no cap).
	MaxFilesChanged int `json:"max_files_changed,omitempty"`
	// CodeRules are regexes written content must not match.
	CodeRules []CodeRule `json:"code_rules,omitempty"`

	blockedREs []*regexp.Regexp
}

// CodeRule forbids a pattern in written content (optionally only in some files).
type CodeRule struct {
	Pattern string   `json:"pattern"`
	Message string   `json:"message"`
	Files   []string `json:"files,omitempty"`

	re *regexp.Regexp
}

var alwaysProtected = []string{".git", ".git/**", "**/.git/**", HooksFile, GuardrailsFile}

// LoadGuardrails reads .autarch/guardrails in dir; a missing file means the defaults.
func LoadGuardrails(dir string) (*Guardrails, error) {
	g := &Guardrails{}
	data, err := os.ReadFile(filepath.Join(dir, GuardrailsFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("reading %s: %w", GuardrailsFile, err)
	}
	if err == nil {
		if err := json.Unmarshal(data, g); err != nil {
			return nil, fmt.Errorf("%s: %v (expected {\"protected\", \"blocked_commands\", \"max_lines_changed\", \"max_files_changed\", \"code_rules\"})", GuardrailsFile, err)
		}
	}
	for _, p := range g.Protected {
		if !doublestar.ValidatePattern(p) {
			return nil, fmt.Errorf("%s: invalid protected pattern %q", GuardrailsFile, p)
		}
	}
	for _, b := range g.BlockedCommands {
		re, err := regexp.Compile(b)
		if err != nil {
			return nil, fmt.Errorf("%s: blocked command %q: %v", GuardrailsFile, b, err)
		}
		g.blockedREs = append(g.blockedREs, re)
	}
	for i := range g.CodeRules {
		re, err := regexp.Compile(g.CodeRules[i].Pattern)
		if err != nil {
			return nil, fmt.Errorf("%s: code rule %q: %v", GuardrailsFile, g.CodeRules[i].Pattern, err)
		}
		g.CodeRules[i].re = re
	}
	return g, nil
}

// writeArgs is what the guardrails read from a write tool's arguments.
type writeArgs struct {
	Path      string          `json:"path"`
	Content   *string         `json:"content"`
	OldString string          `json:"oldString"`
	NewString string          `json:"newString"`
	Edits     []EditOperation `json:"edits"`
	Patch     string          `json:"patch"`
	Command   string          `json:"command"`
}

// check returns a reason to refuse the call, or "".
func (g *Guardrails) check(s *Session, t Tool, args json.RawMessage) string {
	var a writeArgs
	json.Unmarshal(args, &a)
	if t.Name() == "shell" {
		for _, re := range g.blockedCommands() {
			if re.MatchString(a.Command) {
				return "command matches the blocked pattern " + re.String()
			}
		}
		return ""
	}
	if t.Kind() != Write || a.Path == "" {
		return ""
	}
	rel, err := s.root.Clean(a.Path)
	if err != nil {
		return "" // the tool reports the path error itself
	}
	for _, p := range append(append([]string(nil), alwaysProtected...), g.protected()...) {
		if m, _ := doublestar.Match(p, rel); m {
			return fmt.Sprintf("%s is protected (%s)", rel, p)
		}
	}
	added, removed, written := changeOf(s, rel, a)
	if g != nil && g.MaxLinesChanged > 0 && added+removed > g.MaxLinesChanged {
		return fmt.Sprintf("this change adds %d and removes %d lines, over the limit of %d per call; split it into smaller edits", added, removed, g.MaxLinesChanged)
	}
	if g != nil && g.MaxFilesChanged > 0 && !s.wrote(rel) && s.filesWritten() >= g.MaxFilesChanged {
		return fmt.Sprintf("this session already changed %d files, the limit", g.MaxFilesChanged)
	}
	if g != nil {
		for _, r := range g.CodeRules {
			if !matchesFiles(r.Files, rel) {
				continue
			}
			if r.re.MatchString(written) {
				return r.Message
			}
		}
	}
	return ""
}

func (g *Guardrails) blockedCommands() []*regexp.Regexp {
	if g == nil {
		return nil
	}
	return g.blockedREs
}

func (g *Guardrails) protected() []string {
	if g == nil {
		return nil
	}
	return g.Protected
}

// changeOf estimates the lines a write call adds and removes, and the text
// it writes (for code rules).
func changeOf(s *Session, rel string, a writeArgs) (added, removed int, written string) {
	lines := func(x string) int {
		if x == "" {
			return 0
		}
		return strings.Count(x, "\n") + 1
	}
	switch {
	case a.Content != nil:
		old, _ := s.root.ReadFile(rel)
		return lines(*a.Content), lines(string(old)), *a.Content
	case len(a.Edits) > 0:
		var b strings.Builder
		for _, e := range a.Edits {
			added += lines(e.NewString)
			removed += lines(e.OldString)
			b.WriteString(e.NewString)
			b.WriteByte('\n')
		}
		return added, removed, b.String()
	case a.Patch != "":
		var b strings.Builder
		for _, l := range strings.Split(a.Patch, "\n") {
			switch {
			case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			case strings.HasPrefix(l, "+"):
				added++
				b.WriteString(l[1:] + "\n")
			case strings.HasPrefix(l, "-"):
				removed++
			}
		}
		return added, removed, b.String()
	}
	return lines(a.NewString), lines(a.OldString), a.NewString
}
