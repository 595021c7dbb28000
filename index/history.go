package index

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
)

// A repository's history is a field of the lexical ranking where it has
// one, read two ways from the same recorded commits (their messages
// cleaned of boilerplate and cut to histMessage bytes):
//
//   - per file: the messages of the latest histCommits commits that
//     changed the file, a commit's terms halved every histHalfLife
//     commits of the file's own, scored against the query by BM25 over
//     files;
//   - per commit: each message a document scored by BM25 over commits,
//     and each file the sum of the scores of the commits that changed it
//     (a file that often changed for reasons like the query's).
//
// Each score is normalised to the best file and lifts the file's best
// chunk (addHistory) by histMix and histCommitMix of the best lexical
// chunk's score. Files without history, and indexes without any, rank as
// before.
//
// Chosen on ../shared/bench/golochist-dev only (make bench-index; the
// variants tried are in TestTuneHist): MRR 0.733 without history, 0.755
// with the per-file field alone (half-life 10, every chunk lifted), 0.772
// with both (R@10 0.881 → 0.893).
const (
	histCommits = 30
	histMessage = 600
	// histHalfLife is the recency rank at which a commit's terms weigh
	// half in a file's field.
	histHalfLife  = 3.0
	histMix       = 0.5
	histCommitMix = 0.25
	// histMaxCommits is the most commits kept (the oldest go first).
	histMaxCommits = 5000
	// histWideCommit is the most files a recorded commit changed: a wider
	// one (a licence header, a module rename, a reformat) says nothing of
	// each file and is not recorded.
	histWideCommit = 1000
)

// histTune are the history's settings (tests try others).
type histTune struct {
	// mix and cmix are the lifts of the per-file and per-commit scores.
	mix, cmix float64
	// halfLife is the per-file field's half-life in the file's commits.
	halfLife float64
}

// defaultHistTune are the settings Search uses.
func defaultHistTune() histTune {
	return histTune{mix: histMix, cmix: histCommitMix, halfLife: histHalfLife}
}

// FileCommit is one commit: its message and the files it changed.
type FileCommit struct {
	Hash    string
	Message string
	Paths   []string
}

// histCommit is a recorded commit: its cleaned message and the files it
// changed.
type histCommit struct {
	Message string
	Paths   []string
}

// AddHistory records commits (newest first) that came after those
// already recorded; head is the newest commit now seen (HistoryHead).
func (ix *Index) AddHistory(commits []FileCommit, head string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for i := len(commits) - 1; i >= 0; i-- { // oldest first
		if c, ok := recordable(commits[i]); ok {
			ix.commits = append(ix.commits, c)
		}
	}
	if n := len(ix.commits) - histMaxCommits; n > 0 {
		ix.commits = append([]histCommit(nil), ix.commits[n:]...)
	}
	ix.histHead = head
	ix.histTerms = nil // rebuilt by the next search
	ix.dirty.Store(true)
}

// recordable is the commit as recorded, or false when it says nothing of
// its files: it changed none (a merge) or too many, or its message is all
// boilerplate.
func recordable(c FileCommit) (histCommit, bool) {
	if len(c.Paths) == 0 || len(c.Paths) > histWideCommit {
		return histCommit{}, false
	}
	msg := strings.TrimSpace(cleanMessage(c.Message))
	if len(msg) > histMessage {
		msg = msg[:histMessage]
	}
	if msg == "" {
		return histCommit{}, false
	}
	return histCommit{Message: msg, Paths: c.Paths}, true
}

// boilerplate matches what a commit message carries that says nothing of
// the change: trailers (Signed-off-by: …), "Fixes #12" lines, issue and
// pull request numbers, URLs, e-mail addresses.
var boilerplate = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)^\s*(?:[a-z]+(?:-[a-z]+)*-by|change-id|cc|bug|fixes|closes|resolves|updates|refs?|see|pr-url)\s*:.*$` +
		`|^\s*(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|ref(?:erences)?)\s+(?:[\w.-]+/[\w.-]+)?#\d+\s*$` +
		`|https?://\S+|<[^<>\s]+@[^<>\s]+>|(?:[\w.-]+/[\w.-]+)?#\d+`)
})

// cleanMessage drops a commit message's boilerplate.
func cleanMessage(msg string) string {
	return boilerplate().ReplaceAllString(msg, "")
}

// HistorySource lists the commits after since (all when ""), newest
// first, and the newest commit; nil commits and "" when there is no
// history.
type HistorySource func(ctx context.Context, since string) (commits []FileCommit, head string, err error)

// SetHistorySource makes every Build bring the files' histories up to
// date from src (nil: none).
func (ix *Index) SetHistorySource(src HistorySource) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.histSource = src
}

// refreshHistory adds the commits made since the last Build.
func (ix *Index) refreshHistory(ctx context.Context) error {
	ix.mu.RLock()
	src, since := ix.histSource, ix.histHead
	ix.mu.RUnlock()
	if src == nil {
		return nil
	}
	commits, head, err := src(ctx, since)
	if err != nil {
		return fmt.Errorf("file history: %w", err)
	}
	if head != since {
		ix.AddHistory(commits, head)
	}
	return nil
}

// HistoryHead is the newest commit whose history is recorded ("" when none).
func (ix *Index) HistoryHead() string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.histHead
}

// histIndex is the inverted index of the history, per file and per
// commit.
type histIndex struct {
	files   bm25Docs // a document per indexed file (paths)
	paths   []string
	commits bm25Docs // a document per recorded commit (ix.commits)
}

// bm25Docs is an inverted index of weighted term frequencies.
type bm25Docs struct {
	postings map[string][]docTF
	lens     []float64
	avg      float64
}

type docTF struct {
	doc int
	tf  float64
}

// add records a document's term frequencies.
func (b *bm25Docs) add(tf map[string]float64) {
	doc := len(b.lens)
	var n float64
	for t, f := range tf {
		b.postings[t] = append(b.postings[t], docTF{doc, f})
		n += f
	}
	b.lens = append(b.lens, n)
}

// finish computes the average length.
func (b *bm25Docs) finish() {
	var total float64
	for _, l := range b.lens {
		total += l
	}
	if len(b.lens) > 0 {
		b.avg = total / float64(len(b.lens))
	}
}

// score is BM25 of each document matching the query terms.
func (b *bm25Docs) score(qterms map[string]float64) map[int]float64 {
	if b.avg == 0 {
		return nil
	}
	out := map[int]float64{}
	for t, qw := range qterms {
		ps := b.postings[t]
		if len(ps) == 0 {
			continue
		}
		idf := bm25IDF(len(b.lens), len(ps))
		for _, p := range ps {
			tf := p.tf / (1 - bm25B + bm25B*b.lens[p.doc]/b.avg)
			out[p.doc] += qw * idf * tf * (bm25K1 + 1) / (bm25K1 + tf)
		}
	}
	return out
}

// messageTerms counts the terms of a commit message.
func messageTerms(msg string) map[string]float64 {
	tf := map[string]float64{}
	Tokens(msg, func(t string) {
		if !queryStopwords[t] {
			tf[t]++
		}
	})
	return tf
}

// histIndexLocked builds (once per change) the history's inverted index;
// ix.mu is held (read or write), so it is built under histMu.
func (ix *Index) histIndexLocked() *histIndex {
	ix.histMu.Lock()
	defer ix.histMu.Unlock()
	if ix.histTerms != nil || len(ix.commits) == 0 {
		return ix.histTerms
	}
	hi := &histIndex{files: bm25Docs{postings: map[string][]docTF{}}, commits: bm25Docs{postings: map[string][]docTF{}}}
	fileDoc := map[string]int{}
	var fileTF []map[string]float64
	var seen []int // commits in each file's field so far
	tfs := make([]map[string]float64, len(ix.commits))
	for i, c := range ix.commits {
		tfs[i] = messageTerms(c.Message)
		hi.commits.add(tfs[i])
	}
	for i := len(ix.commits) - 1; i >= 0; i-- { // a file's field takes its newest commits
		for _, p := range ix.commits[i].Paths {
			if _, ok := ix.files[p]; !ok {
				continue
			}
			d, ok := fileDoc[p]
			if !ok {
				d = len(hi.paths)
				fileDoc[p] = d
				hi.paths = append(hi.paths, p)
				fileTF, seen = append(fileTF, map[string]float64{}), append(seen, 0)
			}
			if seen[d] >= histCommits {
				continue
			}
			w := math.Pow(0.5, float64(seen[d])/ix.histTune.halfLife)
			seen[d]++
			for t, n := range tfs[i] {
				fileTF[d][t] += w * n
			}
		}
	}
	for _, tf := range fileTF {
		hi.files.add(tf)
	}
	hi.files.finish()
	hi.commits.finish()
	ix.histTerms = hi
	return hi
}

// histLift is how much the history lifts each file for a query: the
// per-file and the per-commit scores, each normalised to the best file.
func (ix *Index) histLift(qterms map[string]float64) map[string]float64 {
	hi := ix.histIndexLocked()
	if hi == nil {
		return nil
	}
	lift := map[string]float64{}
	add := func(scores map[string]float64, mix float64) {
		var top float64
		for _, v := range scores {
			top = max(top, v)
		}
		for p, v := range scores {
			if v > 0 {
				lift[p] += mix * v / top
			}
		}
	}
	if ix.histTune.mix > 0 {
		byFile := map[string]float64{}
		for d, v := range hi.files.score(qterms) {
			byFile[hi.paths[d]] = v
		}
		add(byFile, ix.histTune.mix)
	}
	if ix.histTune.cmix > 0 {
		byFile := map[string]float64{}
		for c, v := range hi.commits.score(qterms) {
			for _, p := range ix.commits[c].Paths {
				if _, ok := ix.files[p]; ok {
					byFile[p] += v
				}
			}
		}
		add(byFile, ix.histTune.cmix)
	}
	return lift
}
