package git

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSummaryLen is the longest accepted summary line, in characters.
const MaxSummaryLen = 100

// CommitTypes returns the Conventional Commit types a pulse summary may use
// (autarch-tools.md, complete_pulse).
func CommitTypes() []string {
	return []string{"feat", "fix", "docs", "style", "refactor", "perf", "test", "chore", "build", "ci"}
}

// Summary is a parsed Conventional Commit message:
// type(scope)!: description, then an optional body.
type Summary struct {
	Type        string
	Scope       string // "" when absent
	Breaking    bool   // the "!" before the colon
	Description string
	Body        string // "" when the message is one line
}

// Header is the summary line, type(scope)!: description.
func (s Summary) Header() string {
	var b strings.Builder
	b.WriteString(s.Type)
	if s.Scope != "" {
		b.WriteString("(" + s.Scope + ")")
	}
	if s.Breaking {
		b.WriteByte('!')
	}
	b.WriteString(": " + s.Description)
	return b.String()
}

// Message is the commit message: the header, and the body after a blank
// line.
func (s Summary) Message() string {
	if s.Body == "" {
		return s.Header() + "\n"
	}
	return s.Header() + "\n\n" + s.Body + "\n"
}

// ValidateSummary checks that summary is a Conventional Commit message with
// one of CommitTypes, naming what is wrong and what is accepted.
func ValidateSummary(summary string) error {
	_, err := ParseSummary(summary)
	return err
}

// ParseSummary parses and validates a Conventional Commit message. The
// first line must be type(scope): description (the scope and a "!" for a
// breaking change are optional); further lines are the body.
func ParseSummary(summary string) (Summary, error) {
	if !utf8.ValidString(summary) {
		return Summary{}, fmt.Errorf("commit summary is not valid UTF-8")
	}
	if strings.ContainsRune(summary, 0) {
		return Summary{}, fmt.Errorf("commit summary contains a NUL character")
	}
	text := strings.TrimSpace(strings.ReplaceAll(summary, "\r\n", "\n"))
	header, body, _ := strings.Cut(text, "\n")
	header = strings.TrimSpace(header)
	s, err := parseHeader(header)
	if err != nil {
		return Summary{}, err
	}
	s.Body = strings.TrimSpace(body)
	return s, nil
}

func parseHeader(h string) (Summary, error) {
	shape := fmt.Errorf("commit summary %q is not a Conventional Commit: write type(scope): description, e.g. \"feat(auth): add token refresh\", with type one of %s", h, strings.Join(CommitTypes(), ", "))
	if h == "" {
		return Summary{}, fmt.Errorf("commit summary is empty: write type(scope): description, e.g. \"feat(auth): add token refresh\"")
	}
	for _, r := range h {
		if unicode.IsControl(r) {
			return Summary{}, fmt.Errorf("commit summary line contains control character %q", r)
		}
	}
	if n := utf8.RuneCountInString(h); n > MaxSummaryLen {
		return Summary{}, fmt.Errorf("commit summary line is %d characters; keep it to %d or fewer", n, MaxSummaryLen)
	}
	prefix, desc, ok := strings.Cut(h, ": ")
	if !ok {
		return Summary{}, shape
	}
	var s Summary
	s.Description = strings.TrimSpace(desc)
	if s.Description == "" || s.Description != desc {
		return Summary{}, fmt.Errorf("commit summary %q needs a description after \"type(scope): \"", h)
	}
	if p, found := strings.CutSuffix(prefix, "!"); found {
		s.Breaking, prefix = true, p
	}
	typ, scope, hasScope := strings.Cut(prefix, "(")
	if hasScope {
		inner, closed := strings.CutSuffix(scope, ")")
		if !closed || inner == "" || strings.ContainsAny(inner, "()") || strings.TrimSpace(inner) != inner {
			return Summary{}, fmt.Errorf("commit summary %q has a malformed scope: write a non-empty scope in parentheses, e.g. \"fix(parser): …\"", h)
		}
		s.Scope = inner
	}
	for _, t := range CommitTypes() {
		if typ == t {
			s.Type = typ
			return s, nil
		}
	}
	if typ == "" || strings.ContainsAny(typ, " ()!:") {
		return Summary{}, shape
	}
	return Summary{}, fmt.Errorf("commit type %q is not accepted: use one of %s", typ, strings.Join(CommitTypes(), ", "))
}
