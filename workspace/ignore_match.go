package workspace

import (
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignorePattern is one gitignore pattern: go-git's, which decides, and
// what its parse found (the same rules as gitignore.ParsePattern), so that
// a walk can decide a folder's entries by their names alone.
type ignorePattern struct {
	gitignore.Pattern
	domain    []string
	name      string // the pattern of a name, when not glob
	inclusion bool
	dirOnly   bool
	glob      bool // the pattern holds a '/': go-git's globMatch decides
}

// parseIgnorePattern parses one line as gitignore.ParsePattern does.
func parseIgnorePattern(line string, domain []string) ignorePattern {
	p := ignorePattern{Pattern: gitignore.ParsePattern(line, domain), domain: domain}
	if strings.HasPrefix(line, "!") {
		p.inclusion = true
		line = line[1:]
	}
	if !strings.HasSuffix(line, "\\ ") {
		line = strings.TrimRight(line, " ")
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = line[:len(line)-1]
	}
	p.glob = strings.Contains(line, "/")
	p.name = line
	return p
}

// nameMatch is filepath.Match(pattern, name) for one pattern, with the
// common shapes (a plain name, "*suffix", "prefix*") decided without it.
type nameMatch struct {
	pattern string
	kind    uint8
	lit     string
}

const (
	nameGlob   = iota // filepath.Match decides
	nameEqual         // the pattern is a plain name
	nameSuffix        // "*" then a plain suffix
	namePrefix        // a plain prefix then "*"
)

func newNameMatch(pattern string) nameMatch {
	const meta = `*?[\`
	switch {
	case !strings.ContainsAny(pattern, meta):
		return nameMatch{pattern: pattern, kind: nameEqual, lit: pattern}
	case len(pattern) > 1 && pattern[0] == '*' && !strings.ContainsAny(pattern[1:], meta):
		return nameMatch{pattern: pattern, kind: nameSuffix, lit: pattern[1:]}
	case len(pattern) > 1 && pattern[len(pattern)-1] == '*' && !strings.ContainsAny(pattern[:len(pattern)-1], meta):
		return nameMatch{pattern: pattern, kind: namePrefix, lit: pattern[:len(pattern)-1]}
	}
	return nameMatch{pattern: pattern, kind: nameGlob}
}

func (m nameMatch) match(name string) bool {
	switch m.kind {
	case nameEqual:
		return name == m.lit
	case nameSuffix: // a path element holds no '/', which '*' would not match
		return strings.HasSuffix(name, m.lit)
	case namePrefix:
		return strings.HasPrefix(name, m.lit)
	}
	ok, err := filepath.Match(m.pattern, name)
	return err == nil && ok
}

// dirMatcher decides the entries of one folder of a walk as
// gitignore.NewMatcher(patterns).Match(append(parts, name), isDir) would:
// a pattern without a '/' matches when any path element below its
// domain matches it, and the folder's own elements are the same for all
// its entries, so they are matched once, here, and only the entry's name
// is left to match per entry. Patterns of another domain never apply.
type dirMatcher struct {
	parts []string
	// steps are the patterns left to try, highest priority first.
	steps []dirStep
	// fallback is the outcome when no step matches: an earlier pattern
	// already matched an element of the folder's path.
	fallback gitignore.MatchResult
	// glob is set when a step needs the entry's whole path.
	glob bool
}

type dirStep struct {
	p    *ignorePattern
	name nameMatch
}

// newDirMatcher prepares the decision for the entries of the folder whose
// path elements are parts (nil for the root), under ps (lowest priority
// first).
func newDirMatcher(parts []string, ps []ignorePattern) *dirMatcher {
	m := &dirMatcher{parts: parts}
	for i := len(ps) - 1; i >= 0; i-- {
		p := &ps[i]
		if len(p.domain) > len(parts) || !hasPrefixElems(parts, p.domain) {
			continue // an entry's path is parts plus one element: too short or outside the domain
		}
		if p.glob {
			m.steps = append(m.steps, dirStep{p: p})
			m.glob = true
			continue
		}
		nm := newNameMatch(p.name)
		if anyElemMatches(nm, parts[len(p.domain):]) {
			// an element of the folder's path (never the last element of
			// an entry's, so dirOnly does not apply) matches: this
			// pattern decides every entry that reaches it
			m.fallback = gitignore.Exclude
			if p.inclusion {
				m.fallback = gitignore.Include
			}
			break
		}
		m.steps = append(m.steps, dirStep{p: p, name: nm})
	}
	return m
}

// empty reports whether no entry of the folder is ever ignored.
func (m *dirMatcher) empty() bool {
	return len(m.steps) == 0 && m.fallback != gitignore.Exclude
}

// match reports whether the entry name (a folder when isDir) is ignored;
// path is its whole path, computed only when a glob pattern needs it.
func (m *dirMatcher) match(name string, isDir bool, path func() []string) bool {
	for _, s := range m.steps {
		var r gitignore.MatchResult
		if s.p.glob {
			r = s.p.Match(path(), isDir)
		} else if s.name.match(name) && !(s.p.dirOnly && !isDir) {
			r = gitignore.Exclude
			if s.p.inclusion {
				r = gitignore.Include
			}
		}
		if r > gitignore.NoMatch {
			return r == gitignore.Exclude
		}
	}
	return m.fallback == gitignore.Exclude
}

func hasPrefixElems(path, prefix []string) bool {
	for i, e := range prefix {
		if path[i] != e {
			return false
		}
	}
	return true
}

func anyElemMatches(m nameMatch, elems []string) bool {
	for _, e := range elems {
		if m.match(e) {
			return true
		}
	}
	return false
}
