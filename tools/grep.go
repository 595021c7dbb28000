package tools

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/autarch-dev/autarch/workspace"
	"github.com/autarch-dev/autarch/workspace/textsearch"
)

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
	return newTool("grep", describe("grep"), ReadOnly, runGrep).declare(EffectSearch, CategoryReadOnly)
}

func runGrep(ctx context.Context, s *Session, p grepParams) (Result, error) {
	if p.Pattern == "" {
		return errorResult("Pattern cannot be empty"), nil
	}
	if p.Skip < 0 {
		return errorResult("skip must be 0 or more"), nil
	}
	if msg := globTooLong(p.Glob); msg != "" {
		return errorResult(msg), nil
	}
	if p.Glob != "" && !doublestar.ValidatePattern(p.Glob) {
		return errorResult("Invalid glob pattern: " + p.Glob), nil
	}
	if len(p.Pattern) > textsearch.MaxPatternBytes {
		return errorResult(fmt.Sprintf("The pattern is %d bytes, more than the %d grep takes: search for a shorter, distinctive part of it",
			len(p.Pattern), textsearch.MaxPatternBytes)), nil
	}
	m, err := newMatcher(p.Pattern, p.CaseSensitive)
	if err != nil {
		return jsonResult(grepResult{Results: []GrepMatch{}, Warning: "Invalid regex pattern: " + err.Error()}, false), nil
	}
	list := s.egress.harvestListingFor(s.root.Dir())
	found, err := search(ctx, s.root, s.ignore, s.gate, m, p.Glob, list, func() { s.egress.listed(s.root.Dir(), list) })
	if err != nil {
		return Result{}, err
	}
	total := countMatches(found)
	res := grepResult{Results: []GrepMatch{}, Total: total}
	if p.Skip < total {
		res.Results = matchPage(found, p.Skip, workspace.MaxGrepResults)
		fillLines(s.root, s.gate, res.Results)
	}
	if total > workspace.MaxGrepResults {
		res.Warning = fmt.Sprintf("Only showing %d matches out of %d. Use skip parameter to paginate through more results.", len(res.Results), total)
	}
	if m.Incomplete() {
		res.Warning = strings.TrimSpace(res.Warning + " " + incompleteWarning)
	}
	return jsonResult(res, false), nil
}

// incompleteWarning tells the model a search gave up on its pattern.
const incompleteWarning = "The search stopped early: this regular expression costs too much on these files " +
	"(it needs a new matcher state at nearly every character, e.g. a long repetition like [a-z]{500}), so matches may be missing. " +
	"Search for a literal part of what you want, or a shorter pattern."

// Matcher finds matching lines in file content (see textsearch: literal
// windows from the syntax tree, a SIMD multi-literal scanner, a lazy DFA
// on the candidate lines). A Matcher is used by one goroutine at a time
// (see clone).
type Matcher struct {
	pattern  *textsearch.Pattern
	searcher *textsearch.Searcher
	// incomplete is set, for the matcher and its clones, when a search
	// gave up on a pattern too costly for the text (see
	// textsearch.Searcher.Exhausted).
	incomplete *atomic.Bool
}

// clone copies a matcher for another goroutine (the DFA cache is per
// goroutine).
func (m *Matcher) clone() *Matcher {
	return &Matcher{pattern: m.pattern, searcher: m.pattern.NewSearcher(), incomplete: m.incomplete}
}

// Incomplete reports whether a search with the matcher gave up on some
// text because the pattern cost too much there: its results may miss
// matches.
func (m *Matcher) Incomplete() bool { return m.incomplete.Load() }

// newMatcher compiles a pattern: plain text matches literally, anything
// else as a regular expression, line by line (^ and $ at line boundaries).
func newMatcher(pattern string, caseSensitive bool) (*Matcher, error) {
	if pattern == "" {
		return nil, fmt.Errorf("empty pattern")
	}
	if len(pattern) > textsearch.MaxPatternBytes { // before regexp.Compile, which is slow on it
		return nil, fmt.Errorf("%w: it is %d bytes, the limit is %d; search for a shorter, distinctive part of it",
			textsearch.ErrPatternTooLong, len(pattern), textsearch.MaxPatternBytes)
	}
	literal := regexp.QuoteMeta(pattern) == pattern
	if !literal {
		if _, err := regexp.Compile(pattern); err != nil {
			return nil, err // report errors against the user's pattern
		}
	}
	p, err := textsearch.Compile(pattern, caseSensitive, literal)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", pattern, err)
	}
	return &Matcher{pattern: p, searcher: p.NewSearcher(), incomplete: &atomic.Bool{}}, nil
}

// scanner holds one worker's reusable buffers and open file.
type scanner struct {
	data   []byte
	starts []int
	file   workspace.WalkedFile
	// lines is the block the files' line numbers are cut from (see
	// lineNumbers): one allocation for many files, not one per file.
	lines []int
}

// lineBlock is how many line numbers a scanner's block holds at least.
const lineBlock = 4096

// lineNumbers turns the start offsets of data's matching lines into
// their line numbers, cut from sc's block: a block is only appended to,
// so the numbers handed out are never written again.
func (sc *scanner) lineNumbers(data []byte, starts []int) []int {
	if cap(sc.lines)-len(sc.lines) < len(starts) {
		sc.lines = make([]int, 0, max(len(starts), lineBlock))
	}
	from := len(sc.lines)
	lineNo, pos := 1, 0
	for _, st := range starts {
		lineNo += bytes.Count(data[pos:st], []byte{'\n'})
		pos = st
		sc.lines = append(sc.lines, lineNo)
	}
	return sc.lines[from:len(sc.lines):len(sc.lines)]
}

// matchLines returns the start offsets of matching lines (in sc.starts).
func (m *Matcher) matchLines(sc *scanner, data []byte) []int {
	sc.starts = m.searcher.MatchLines(sc.starts[:0], data)
	return sc.starts
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
	found, err := search(ctx, root, ig, gate, m, glob, nil, nil)
	if err != nil {
		return nil, err
	}
	return matchPage(found, 0, countMatches(found)), nil
}

// countMatches counts the matching lines of files.
func countMatches(found []fileMatches) int {
	n := 0
	for _, f := range found {
		n += len(f.lines)
	}
	return n
}

// matchPage returns at most n matches of found (in order) from the
// skip-th on: a search with a million matches shows a page of them
// without making a million.
func matchPage(found []fileMatches, skip, n int) []GrepMatch {
	page := make([]GrepMatch, 0, max(0, min(n, countMatches(found)-skip)))
	for _, f := range found {
		if skip >= len(f.lines) {
			skip -= len(f.lines)
			continue
		}
		for _, l := range f.lines[skip:] {
			if len(page) == n {
				return page
			}
			page = append(page, GrepMatch{FilePath: f.path, LineNumber: l})
		}
		skip = 0
	}
	return page
}

// search is Search, returning each file's matches sorted by path, that
// also fills list (when not nil) with what the egress harvest needs from
// its walk of the whole root: the files the gate blocks by path
// (whatever the glob) and the entries the ignore rules hide. walked (when not nil) is called once the walk has ended
// without error, while the files are still being searched.
func search(ctx context.Context, root *workspace.Root, ig *workspace.Ignore, gate *workspace.Gate, m *Matcher, glob string, list *harvestListing, walked func()) ([]fileMatches, error) {
	// The walker hands the workers batches of files: one channel
	// operation (and at most one wake-up) per batch, not per file. Each
	// file holds its folder open until it is read (see grepBatches).
	batches := make(chan []walkedFile, grepBatches)
	var walkErr error
	var hidden func(string, fs.DirEntry)
	if list != nil {
		hidden = list.hide
	}
	go func() {
		defer close(batches)
		batch := make([]walkedFile, 0, grepBatch)
		walkErr = ig.WalkHidden(ctx, ".", func(rel string, d fs.DirEntry) error {
			if d.IsDir() || !d.Type().IsRegular() {
				return nil
			}
			if list != nil {
				if _, blocked := gate.PathBlocked(rel); blocked {
					list.blocked = append(list.blocked, rel)
					return nil
				}
			}
			if glob != "" {
				if ok, _ := doublestar.Match(glob, rel); !ok {
					return nil
				}
			}
			if list == nil {
				if _, blocked := gate.PathBlocked(rel); blocked {
					return nil
				}
			}
			if batch = append(batch, walkedFile{rel: rel, dir: workspace.HoldWalkDir(d)}); len(batch) == grepBatch {
				batches <- batch
				batch = make([]walkedFile, 0, grepBatch)
			}
			return nil
		}, hidden)
		if len(batch) > 0 {
			batches <- batch
		}
		if walkErr == nil && walked != nil {
			walked()
		}
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
			for batch := range batches {
				for _, f := range batch {
					results[w] = grepFile(sc, root, gate, f, wm, results[w])
				}
			}
			if wm.searcher.Exhausted() {
				wm.incomplete.Store(true)
			}
		}()
	}
	wg.Wait()
	if walkErr != nil {
		return nil, walkErr
	}
	var found []fileMatches
	for _, r := range results {
		found = append(found, r...)
	}
	slices.SortFunc(found, func(a, b fileMatches) int { return strings.Compare(a.path, b.path) })
	return found, nil
}

// grepBatch is how many files the walker hands a worker at once: small
// enough that both workers start on the first folder's files.
const grepBatch = 16

// grepBatches is how many batches may wait for a worker. It bounds the
// folders held open for them (at most a descriptor per waiting file).
const grepBatches = 32

// walkedFile is a file the walk listed, with its folder held open
// (nil: opened by its path).
type walkedFile struct {
	rel string
	dir *workspace.WalkDir
}

// fileMatches are one file's matching line numbers, in order.
type fileMatches struct {
	path  string
	lines []int
}

// grepFile searches one file, appending its matches to out unless the gate
// blocks the file.
func grepFile(sc *scanner, root *workspace.Root, gate *workspace.Gate, wf walkedFile, m *Matcher, out []fileMatches) []fileMatches {
	rel := wf.rel
	data, binary, err := root.OpenWalkedTextIn(&sc.file, wf.dir, rel, sc.data, workspace.MaxGrepFileSize)
	if wf.dir != nil {
		wf.dir.Release()
	}
	defer sc.file.Close()
	if data != nil {
		sc.data = data // the buffer, grown, for the next file
	}
	if err != nil || binary || len(data) == 0 {
		return out
	}
	starts := m.matchLines(sc, data)
	if len(starts) == 0 {
		return out
	}
	// The walk found the path not sensitive (search asks PathBlocked of
	// every file it sends): only the content is left to decide.
	st := sc.file.Stamp()
	if _, blocked := gate.ContentBlockedStamp(data, st); blocked {
		return out
	}
	// The walk does not follow symlinks; a file with other names may be
	// a blocked file's hard link.
	if sc.file.Links() > 1 {
		if _, blocked := gate.AliasBlocked(root, rel, st); blocked {
			return out
		}
	}
	return append(out, fileMatches{path: rel, lines: sc.lineNumbers(data, starts)})
}

// fillLines sets the line text of a page of matches. The file is read
// again and decided again by the gate (it may have changed since the
// search; its verdict is the one known for that version of it, if any): a
// blocked file shows [blocked] for every match, and lines are taken from
// the gate's line redaction. Only the lines asked for are cut out.
func fillLines(root *workspace.Root, gate *workspace.Gate, page []GrepMatch) {
	type file struct {
		text      string
		ok        bool
		line, off int // where the last line asked for starts, to go on from
	}
	cache := map[string]*file{}
	for i, g := range page {
		f, seen := cache[g.FilePath]
		if !seen {
			f = &file{line: 1}
			f.text, f.ok = gatedText(root, gate, g.FilePath)
			cache[g.FilePath] = f
		}
		text := workspace.Blocked
		if f.ok {
			if g.LineNumber < f.line {
				f.line, f.off = 1, 0
			}
			for f.line < g.LineNumber {
				nl := strings.IndexByte(f.text[f.off:], '\n')
				if nl < 0 {
					break // past the last line
				}
				f.off += nl + 1
				f.line++
			}
			if f.line == g.LineNumber {
				line := f.text[f.off:]
				if nl := strings.IndexByte(line, '\n'); nl >= 0 {
					line = line[:nl]
				}
				text = strings.TrimRight(line, "\r")
			}
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
	text, ok := gatedText(root, gate, rel)
	if !ok {
		return nil
	}
	return strings.Split(text, "\n")
}

// gatedText reads a file for display: ok false when the file is gone or
// blocked (ReadShown: by its path, by the verdict known for this version
// of the file, else decided now, or as another name of a blocked file),
// else its text with secret lines redacted.
func gatedText(root *workspace.Root, gate *workspace.Gate, rel string) (text string, ok bool) {
	data, _, err := gate.ReadShown(root, rel, workspace.MaxReadSize)
	if err != nil {
		return "", false
	}
	// data is this call's own and never written again: the text shares it.
	return gate.RedactLines(unsafe.String(unsafe.SliceData(data), len(data))), true
}
