package index

import (
	"context"
	"fmt"
	"math"
	"strings"
)

// A file's history is a field of the lexical ranking where the repository
// has one: the messages of the commits that changed the file (newest
// first, at most histCommits of them, each cut to histMessage bytes), a
// commit's terms weighted by its recency among them. A query is matched
// against each file's history by BM25 over files, and the chunks of the
// files it matches are lifted by histMix of that score (normalised to the
// best file). Files without history, and indexes without any, rank as
// before. Chosen on ../shared/bench/golochist-dev only (make bench-index:
// MRR 0.733 → 0.756, R@10 0.881 → 0.89; half-lives 3–10 and mixes
// 0.25–0.5 score within 0.01; a lift after the vector fusion did no better).
const (
	histCommits = 30
	histMessage = 600
	// histHalfLife is the recency rank at which a commit's terms weigh half.
	histHalfLife = 10.0
	histMix      = 0.5
)

// histTune are the history's settings (tests try others).
type histTune struct{ mix, halfLife float64 }

// FileCommit is one commit: its message and the files it changed.
type FileCommit struct {
	Hash    string
	Message string
	Paths   []string
}

// fileHistory is one file's recent commit messages, newest first.
type fileHistory struct {
	Messages []string
}

// AddHistory records commits (newest first) that came after those
// already recorded; head is the newest commit now seen (HistoryHead).
func (ix *Index) AddHistory(commits []FileCommit, head string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.history == nil {
		ix.history = map[string]*fileHistory{}
	}
	// oldest first, so that each file's newest message ends up first
	for i := len(commits) - 1; i >= 0; i-- {
		c := commits[i]
		msg := strings.TrimSpace(c.Message)
		if len(msg) > histMessage {
			msg = msg[:histMessage]
		}
		for _, p := range c.Paths {
			h := ix.history[p]
			if h == nil {
				h = &fileHistory{}
				ix.history[p] = h
			}
			h.Messages = append([]string{msg}, h.Messages[:min(len(h.Messages), histCommits-1)]...)
		}
	}
	ix.histHead = head
	ix.histTerms = nil // rebuilt by the next search
	ix.dirty.Store(true)
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

// histIndex is the inverted index of the files' histories.
type histIndex struct {
	postings map[string][]histPosting
	lens     map[string]float64
	avg      float64
}

type histPosting struct {
	path string
	tf   float64
}

// histIndexLocked builds (once per change) the histories' inverted index;
// ix.mu is held (read or write), so it is built under histOnce.
func (ix *Index) histIndexLocked() *histIndex {
	ix.histMu.Lock()
	defer ix.histMu.Unlock()
	if ix.histTerms != nil || len(ix.history) == 0 {
		return ix.histTerms
	}
	hi := &histIndex{postings: map[string][]histPosting{}, lens: map[string]float64{}}
	var total float64
	for p, h := range ix.history {
		if _, ok := ix.files[p]; !ok {
			continue
		}
		tf := map[string]float64{}
		for rank, m := range h.Messages {
			w := math.Pow(0.5, float64(rank)/ix.histTune.halfLife)
			Tokens(m, func(t string) {
				if !queryStopwords[t] {
					tf[t] += w
					hi.lens[p] += w
				}
			})
		}
		total += hi.lens[p]
		for t, n := range tf {
			hi.postings[t] = append(hi.postings[t], histPosting{p, n})
		}
	}
	if len(hi.lens) > 0 {
		hi.avg = total / float64(len(hi.lens))
	}
	ix.histTerms = hi
	return hi
}

// histScores scores files by their history against the query terms.
func (ix *Index) histScores(qterms map[string]float64) map[string]float64 {
	hi := ix.histIndexLocked()
	if hi == nil || hi.avg == 0 {
		return nil
	}
	n := float64(len(hi.lens))
	out := map[string]float64{}
	for t, qw := range qterms {
		ps := hi.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := p.tf / (1 - bm25B + bm25B*hi.lens[p.path]/hi.avg)
			out[p.path] += qw * idf * tf * (bm25K1 + 1) / (bm25K1 + tf)
		}
	}
	return out
}
