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
		fillLines(s.root, s.gate, res.Results)
	}
	if len(all) > workspace.MaxGrepResults {
		res.Warning = fmt.Sprintf("Only showing %d matches out of %d. Use skip parameter to paginate through more results.", len(res.Results), len(all))
	}
	return jsonResult(res, false), nil
}

// Matcher finds matching lines in file content.
type Matcher struct {
	fold bool
	// literal: a plain-text pattern (lowered when fold).
	literal []byte
	// re with prefilters: a line can match only if it contains one of
	// anyOf (lowered when fold); nil anyOf means scan with re directly.
	re    *regexp.Regexp
	anyOf [][]byte
	// finders search the folded literal or anyOf (fold only). A Matcher
	// with finders is used by one goroutine at a time (see clone).
	finders []*foldFinder
	// textAnchors: the pattern uses \A or \z, which only per-line
	// matching gives line meaning.
	textAnchors bool
}

// clone copies a matcher for another goroutine (finders keep state).
func (m *Matcher) clone() *Matcher {
	c := *m
	c.finders = nil
	for _, f := range m.finders {
		c.finders = append(c.finders, newFoldFinder(f.lit))
	}
	return &c
}

// newMatcher compiles a pattern; plain text takes a literal fast path and
// regexes get a literal prefilter where the syntax tree allows one.
func newMatcher(pattern string, caseSensitive bool) (*Matcher, error) {
	if pattern == "" {
		return nil, fmt.Errorf("empty pattern")
	}
	fold := !caseSensitive
	if regexp.QuoteMeta(pattern) == pattern {
		lit := []byte(pattern)
		m := &Matcher{literal: lit, fold: fold}
		if fold {
			m.literal = bytes.ToLower(lit)
			m.finders = []*foldFinder{newFoldFinder(m.literal)}
		}
		return m, nil
	}
	// ^ and $ match at line boundaries: grep is line by line.
	expr := "(?m)" + pattern
	if fold {
		expr = "(?mi)" + pattern
	}
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, err // report errors against the user's pattern
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	m := &Matcher{re: re, fold: fold, textAnchors: strings.Contains(pattern, `\A`) || strings.Contains(pattern, `\z`)}
	if parsed, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		for _, lit := range requiredLiterals(parsed.Simplify()) {
			b := []byte(lit)
			if fold {
				b = bytes.ToLower(b)
				m.finders = append(m.finders, newFoldFinder(b))
			}
			m.anyOf = append(m.anyOf, b)
		}
	}
	return m, nil
}

// requiredLiterals returns literals one of which every match contains, or
// nil when no such set is known.
func requiredLiterals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{string(re.Rune)}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []string
		for _, sub := range re.Sub {
			if lits := requiredLiterals(sub); lits != nil && (best == nil || shortest(lits) > shortest(best)) {
				best = lits
			}
		}
		return best
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			lits := requiredLiterals(sub)
			if lits == nil {
				return nil
			}
			all = append(all, lits...)
		}
		return all
	case syntax.OpCharClass:
		// A small class of single characters, e.g. [-/].
		var lits []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1]-re.Rune[i] > 4 {
				return nil
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				lits = append(lits, string(r))
			}
		}
		if len(lits) > 0 && len(lits) <= 8 {
			return lits
		}
	}
	return nil
}

func shortest(lits []string) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l) < n {
			n = len(l)
		}
	}
	return n
}

// scanner holds one worker's reusable buffers.
type scanner struct {
	data   []byte
	starts []int
}

// matchLines appends the start offsets of matching lines to sc.starts.
func (m *Matcher) matchLines(sc *scanner, data []byte) []int {
	sc.starts = sc.starts[:0]
	if len(data) == 0 {
		return sc.starts
	}
	if m.literal != nil && m.fold {
		return m.foldLiteralLines(sc, data)
	}
	if m.fold && m.anyOf != nil {
		return m.foldCandidates(sc, data)
	}
	if m.literal != nil {
		for off := 0; off < len(data); {
			i := bytes.Index(data[off:], m.literal)
			if i < 0 {
				break
			}
			start, end := lineBounds(data, off+i)
			sc.starts = append(sc.starts, start)
			off = end + 1
		}
		return sc.starts
	}
	if m.anyOf == nil && m.textAnchors {
		return m.perLine(sc, data, -1)
	}
	if m.anyOf == nil {
		last := -1
		for _, loc := range m.re.FindAllIndex(data, -1) {
			if loc[0] == len(data) && data[len(data)-1] == '\n' {
				break // an empty match after the last line
			}
			if bytes.IndexByte(data[loc[0]:loc[1]], '\n') >= 0 {
				// The match spans lines; grep matches line by line.
				return m.perLine(sc, data, last)
			}
			if start, _ := lineBounds(data, loc[0]); start != last {
				sc.starts = append(sc.starts, start)
				last = start
			}
		}
		return sc.starts
	}
	// Candidate lines contain one of the literals; only they meet the regex.
	for off := 0; off < len(data); {
		at := -1
		for _, lit := range m.anyOf {
			if i := bytes.Index(data[off:], lit); i >= 0 && (at < 0 || off+i < at) {
				at = off + i
			}
		}
		if at < 0 {
			break
		}
		start, end := lineBounds(data, at)
		if m.re.Match(data[start:end]) {
			sc.starts = append(sc.starts, start)
		}
		off = end + 1
	}
	return sc.starts
}

// perLine matches the regex against each line after the line starting at
// done (-1: from the beginning), keeping the starts found so far.
func (m *Matcher) perLine(sc *scanner, data []byte, done int) []int {
	for start := 0; start < len(data); {
		end := bytes.IndexByte(data[start:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += start
		}
		if start > done && m.re.Match(data[start:end]) {
			sc.starts = append(sc.starts, start)
		}
		start = end + 1
	}
	return sc.starts
}

// foldFinder finds a literal case-insensitively without lowering the
// data: it scans for the literal's rarest byte in both cases (memchr speed)
// and compares the surrounding bytes with EqualFold.
type foldFinder struct {
	lit    []byte
	k      int
	lo, up byte
	nl, nu int // next candidate positions of lo and up (-1: not searched yet)
}

func newFoldFinder(lit []byte) *foldFinder {
	k := rarestByte(lit)
	lo, up := lit[k], lit[k]
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	return &foldFinder{lit: lit, k: k, lo: lo, up: up, nl: -1, nu: -1}
}

func (f *foldFinder) reset() { f.nl, f.nu = -1, -1 }

func indexFrom(data []byte, b byte, from int) int {
	if from >= len(data) {
		return len(data)
	}
	if i := bytes.IndexByte(data[from:], b); i >= 0 {
		return from + i
	}
	return len(data)
}

// next returns the first position ≥ from where the literal occurs, or len(data).
func (f *foldFinder) next(data []byte, from int) int {
	min0 := from + f.k
	for {
		if f.nl < min0 {
			f.nl = indexFrom(data, f.lo, min0)
		}
		if f.up == f.lo {
			f.nu = len(data)
		} else if f.nu < min0 {
			f.nu = indexFrom(data, f.up, min0)
		}
		at := min(f.nl, f.nu)
		if at >= len(data) {
			return len(data)
		}
		start := at - f.k
		if start+len(f.lit) <= len(data) && bytes.EqualFold(data[start:start+len(f.lit)], f.lit) {
			return start
		}
		min0 = at + 1
	}
}

// foldLiteralLines finds the lines holding a folded literal.
func (m *Matcher) foldLiteralLines(sc *scanner, data []byte) []int {
	f := m.finders[0]
	f.reset()
	for off := 0; off < len(data); {
		at := f.next(data, off)
		if at >= len(data) {
			break
		}
		ls, le := lineBounds(data, at)
		sc.starts = append(sc.starts, ls)
		off = le + 1
	}
	return sc.starts
}

// foldCandidates runs the regex on the lines that hold one of the folded
// prefilter literals.
func (m *Matcher) foldCandidates(sc *scanner, data []byte) []int {
	for _, f := range m.finders {
		f.reset()
	}
	for off := 0; off < len(data); {
		at := len(data)
		for _, f := range m.finders {
			at = min(at, f.next(data, off))
		}
		if at >= len(data) {
			break
		}
		start, end := lineBounds(data, at)
		if m.re.Match(data[start:end]) {
			sc.starts = append(sc.starts, start)
		}
		off = end + 1
	}
	return sc.starts
}

// byteRank orders bytes from common to rare in source code (rank 0 = most common).
const commonBytes = " etaoinsrlcdhupmfg.,;()\n\t_=\"ybwvEkTSxACIRNOLD/:0-1{}P*'2>MF<UBGHWjz[]qKV#$%&+!3456789@XYZJQ|?^~`\\"

// rarestByte returns the index in lit (lower case) of its least common byte.
func rarestByte(lit []byte) int {
	best, bestRank := 0, -1
	for i, c := range lit {
		rank := strings.IndexByte(commonBytes, c)
		if rank < 0 {
			rank = 200
		}
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	return best
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

// Search greps every non-ignored, non-binary file of at most 10 MB
// (optionally only those matching glob) that the gate does not block, in
// parallel, returning all matches sorted by path and line. A file the gate
// blocks (gate.FileBlocked: its path, or a secret anywhere in it) yields no
// match at all, whatever the pattern, so a search cannot tell its lines
// apart. Sensitive paths are skipped unread; the content check runs on the
// bytes already read, and only for files with a match (a file without one
// yields nothing either way). Match lines are not filled in (see
// fillLines), so that a search with many matches stays cheap.
func Search(ctx context.Context, root *workspace.Root, ig *workspace.Ignore, gate *workspace.Gate, m *Matcher, glob string) ([]GrepMatch, error) {
	files := make(chan string, 1024)
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
	workers := runtime.GOMAXPROCS(0)
	results := make([][]fileMatches, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := &scanner{}
			wm := m.clone()
			for rel := range files {
				results[w] = grepFile(sc, root, gate, rel, wm, results[w])
			}
		}()
	}
	wg.Wait()
	if walkErr != nil {
		return nil, walkErr
	}
	var found []fileMatches
	n := 0
	for _, r := range results {
		found = append(found, r...)
		for _, f := range r {
			n += len(f.lines)
		}
	}
	slices.SortFunc(found, func(a, b fileMatches) int { return strings.Compare(a.path, b.path) })
	all := make([]GrepMatch, 0, n)
	for _, f := range found {
		for _, l := range f.lines {
			all = append(all, GrepMatch{FilePath: f.path, LineNumber: l})
		}
	}
	return all, nil
}

// fileMatches are one file's matching line numbers, in order.
type fileMatches struct {
	path  string
	lines []int
}

// grepFile searches one file, appending its matches to out unless the gate
// blocks the file.
func grepFile(sc *scanner, root *workspace.Root, gate *workspace.Gate, rel string, m *Matcher, out []fileMatches) []fileMatches {
	data, stamp, err := root.ReadWalkedStamp(rel, sc.data, workspace.MaxGrepFileSize)
	if err != nil || len(data) == 0 {
		return out
	}
	sc.data = data
	if workspace.IsBinary(data) {
		return out
	}
	starts := m.matchLines(sc, data)
	if len(starts) == 0 {
		return out
	}
	if _, blocked := gate.FileBlockedStamp(rel, data, stamp); blocked {
		return out
	}
	lines := make([]int, len(starts))
	lineNo, pos := 1, 0
	for i, st := range starts {
		lineNo += bytes.Count(data[pos:st], []byte{'\n'})
		pos = st
		lines[i] = lineNo
	}
	return append(out, fileMatches{path: rel, lines: lines})
}

// fillLines sets the line text of a page of matches. The file is read
// again and decided again by the gate (it may have changed since the
// search): a blocked file shows [blocked] for every match, and lines are
// taken from the gate's line redaction.
func fillLines(root *workspace.Root, gate *workspace.Gate, page []GrepMatch) {
	cache := map[string][]string{}
	for i, g := range page {
		lines, ok := cache[g.FilePath]
		if !ok {
			lines = gatedLines(root, gate, g.FilePath)
			cache[g.FilePath] = lines
		}
		text := workspace.Blocked
		if g.LineNumber-1 < len(lines) {
			text = strings.TrimRight(lines[g.LineNumber-1], "\r")
		}
		if len(text) > 200 {
			text = text[:200] + "…"
		}
		page[i].Line = text
	}
}

// gatedLines reads a file's lines for display: nil when the file is gone
// or blocked (FileBlocked), else its lines with secret lines redacted.
func gatedLines(root *workspace.Root, gate *workspace.Gate, rel string) []string {
	data, err := root.ReadFile(rel)
	if err != nil {
		return nil
	}
	if _, blocked := gate.FileBlocked(rel, data); blocked {
		return nil
	}
	return strings.Split(gate.RedactLines(string(data)), "\n")
}
