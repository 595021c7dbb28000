package tools

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io/fs"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/autarch-dev/autarch/workspace"
)

//go:embed grep.md
var grepDesc string

type grepParams struct {
	Reason        string `json:"reason"`
	Pattern       string `json:"pattern" jsonschema:"The search pattern (a regular expression; plain text matches literally unless it uses regex syntax)"`
	Glob          string `json:"glob,omitempty" jsonschema:"Optional glob pattern to filter files, e.g., '**/*.cs' for C# files only"`
	CaseSensitive bool   `json:"caseSensitive,omitempty" jsonschema:"If true, perform case-sensitive matching; if false (default), match case-insensitively"`
	Skip          int    `json:"skip,omitempty" jsonschema:"Number of matches to skip for pagination (default: 0)"`
}

// GrepMatch is one matching line.
type GrepMatch struct {
	FilePath   string `json:"file_path"`
	LineNumber int    `json:"line_number"`
	Line       string `json:"line,omitempty"`
}

type grepResult struct {
	Results []GrepMatch `json:"results"`
	Warning string      `json:"warning,omitempty"`
	Total   int         `json:"total"`
}

func newGrep() Tool {
	return newTool("grep", grepDesc, ReadOnly, runGrep)
}

func runGrep(ctx context.Context, s *Session, p grepParams) (Result, error) {
	if p.Pattern == "" {
		return errorResult("Pattern cannot be empty"), nil
	}
	if p.Skip < 0 {
		return errorResult("skip must be 0 or more"), nil
	}
	if p.Glob != "" && !doublestar.ValidatePattern(p.Glob) {
		return errorResult("Invalid glob pattern: " + p.Glob), nil
	}
	m, err := newMatcher(p.Pattern, p.CaseSensitive)
	if err != nil {
		return jsonResult(grepResult{Results: []GrepMatch{}, Warning: "Invalid regex pattern: " + err.Error()}, false), nil
	}
	all, err := Search(ctx, s.root, s.ignore, s.gate, m, p.Glob)
	if err != nil {
		return Result{}, err
	}
	res := grepResult{Results: []GrepMatch{}, Total: len(all)}
	if p.Skip < len(all) {
		end := min(p.Skip+workspace.MaxGrepResults, len(all))
		res.Results = all[p.Skip:end]
	}
	if len(all) > workspace.MaxGrepResults {
		res.Warning = fmt.Sprintf("Only showing %d matches out of %d. Use skip parameter to paginate through more results.", len(res.Results), len(all))
	}
	return jsonResult(res, false), nil
}

// Matcher finds matching lines in file content.
type Matcher struct {
	literal []byte // non-nil: a literal search (lowered when fold)
	fold    bool
	re      *regexp.Regexp
	prefix  []byte // a literal every match contains (lowered when fold), for a fast skip
}

// newMatcher compiles a pattern; plain text takes a literal fast path.
func newMatcher(pattern string, caseSensitive bool) (*Matcher, error) {
	fold := !caseSensitive
	if regexp.QuoteMeta(pattern) == pattern {
		lit := []byte(pattern)
		if fold {
			lit = bytes.ToLower(lit)
		}
		return &Matcher{literal: lit, fold: fold}, nil
	}
	expr := pattern
	if fold {
		expr = "(?i)" + pattern
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	m := &Matcher{re: re, fold: fold}
	if lit := requiredLiteral(pattern); len(lit) >= 3 {
		m.prefix = []byte(lit)
		if fold {
			m.prefix = bytes.ToLower(m.prefix)
		}
	}
	return m, nil
}

// requiredLiteral returns the longest literal every match must contain, if
// the pattern is a concatenation with a literal part.
func requiredLiteral(pattern string) string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return ""
	}
	re = re.Simplify()
	best := ""
	consider := func(r *syntax.Regexp) {
		if r.Op == syntax.OpLiteral && r.Flags&syntax.FoldCase == 0 && len(string(r.Rune)) > len(best) {
			best = string(r.Rune)
		}
	}
	switch re.Op {
	case syntax.OpLiteral:
		consider(re)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			consider(sub)
		}
	}
	return best
}

// matchLines returns the 1-based numbers and text of matching lines.
func (m *Matcher) matchLines(data []byte) []lineMatch {
	hay := data
	if m.fold && (m.literal != nil || m.prefix != nil) {
		hay = bytes.ToLower(data)
	}
	var out []lineMatch
	if m.literal != nil {
		off := 0
		for {
			i := bytes.Index(hay[off:], m.literal)
			if i < 0 {
				return out
			}
			at := off + i
			start, end := lineBounds(data, at)
			out = append(out, lineMatch{offset: start, text: data[start:end]})
			off = end + 1
			if off >= len(data) {
				return out
			}
		}
	}
	if m.prefix != nil && !bytes.Contains(hay, m.prefix) {
		return nil
	}
	last := -1
	for _, loc := range m.re.FindAllIndex(data, -1) {
		start, end := lineBounds(data, loc[0])
		if start == last {
			continue
		}
		last = start
		out = append(out, lineMatch{offset: start, text: data[start:end]})
	}
	return out
}

type lineMatch struct {
	offset int
	text   []byte
}

func lineBounds(data []byte, at int) (int, int) {
	start := bytes.LastIndexByte(data[:at], '\n') + 1
	end := bytes.IndexByte(data[at:], '\n')
	if end < 0 {
		end = len(data)
	} else {
		end += at
	}
	return start, end
}

// Search greps every non-ignored, non-sensitive, non-binary file of at most
// 10 MB (optionally only those matching glob) in parallel, returning all
// matches sorted by path and line.
func Search(ctx context.Context, root *workspace.Root, ig *workspace.Ignore, gate *workspace.Gate, m *Matcher, glob string) ([]GrepMatch, error) {
	files := make(chan string, 256)
	var walkErr error
	go func() {
		defer close(files)
		walkErr = ig.Walk(ctx, ".", func(rel string, d fs.DirEntry) error {
			if d.IsDir() || !d.Type().IsRegular() {
				return nil
			}
			if glob != "" {
				if ok, _ := doublestar.Match(glob, rel); !ok {
					return nil
				}
			}
			if _, blocked := gate.PathBlocked(rel); blocked {
				return nil
			}
			files <- rel
			return nil
		})
	}()
	var mu sync.Mutex
	var all []GrepMatch
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rel := range files {
				found := grepFile(root, rel, m)
				if len(found) > 0 {
					mu.Lock()
					all = append(all, found...)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if walkErr != nil {
		return nil, walkErr
	}
	slices.SortFunc(all, func(a, b GrepMatch) int {
		if c := strings.Compare(a.FilePath, b.FilePath); c != 0 {
			return c
		}
		return a.LineNumber - b.LineNumber
	})
	return all, nil
}

// grepFile searches one file.
func grepFile(root *workspace.Root, rel string, m *Matcher) []GrepMatch {
	fi, err := root.Stat(rel)
	if err != nil || fi.Size() > workspace.MaxGrepFileSize || fi.Size() == 0 {
		return nil
	}
	data, err := root.ReadFile(rel)
	if err != nil || workspace.IsBinary(data) {
		return nil
	}
	lines := m.matchLines(data)
	if len(lines) == 0 {
		return nil
	}
	out := make([]GrepMatch, 0, len(lines))
	lineNo, pos := 1, 0
	for _, l := range lines {
		lineNo += bytes.Count(data[pos:l.offset], []byte{'\n'})
		pos = l.offset
		text := string(l.text)
		if workspace.LineSecret(text) != "" {
			text = workspace.Blocked
		} else if len(text) > 200 {
			text = text[:200] + "…"
		}
		out = append(out, GrepMatch{FilePath: rel, LineNumber: lineNo, Line: strings.TrimRight(text, "\r")})
	}
	return out
}
