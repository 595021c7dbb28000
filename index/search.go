package index

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Weight is a parsed pattern weight: files matching Glob get scores × Weight.
type Weight struct {
	Glob   string
	Weight float64
}

// Query is a search request.
type Query struct {
	Text    string
	Max     int
	Weights []Weight
}

// Hit is one result.
type Hit struct {
	Path          string
	Start, End    int
	Snippet       string
	Score         float64 // normalized to the best hit (0..1]
	AdjustedScore float64 // Score × the pattern weights that match
	// Nearest says nothing matched closely: the hit is among the nearest
	// chunks there are, below the floors a match must reach.
	Nearest bool
}

// rankMode selects the rankings a search uses (the eval compares them).
type rankMode int

const (
	rankFused rankMode = iota
	rankLexical
	rankVector  // the hashed 3-gram vectors only
	rankTrained // the trained vectors only
)

// Fusion settings, chosen on the ../shared/bench dev splits. Fusion mixes
// min-max normalised scores: reciprocal rank fusion (k=60) scored lower on
// both sets (CoSQA nDCG@10 0.426 against 0.440, Go localization MRR 0.646
// against 0.694), as it gives the weaker list an equal say.
const (
	fusionAlpha  = 0.7  // share of the lexical ranking
	lexicalDepth = 1000 // lexical candidates fused
	vectorDepth  = 200  // vector candidates fused (exhaustive vector search)
	// minVectorOnly is the least cosine of a candidate the lexical ranking
	// did not find (weaker ones are noise of shared 3-grams).
	minVectorOnly = 0.2
	// minTrainedOnly is the same floor for the trained vectors.
	minTrainedOnly = 0.3
	// secondChunkShare is the share of a file's second best candidate's
	// score added to each of its candidates (file-level aggregation).
	secondChunkShare = 0.2
	// The mixes with trained vectors: shares of the lexical ranking and of
	// the hashed vectors (the trained vectors have the rest), for queries
	// of at most shortQueryWords words and for longer ones.
	shortQueryWords = 16
	shortMixLex     = 0.4
	shortMixHash    = 0.3
	longMixLex      = 0.7
	longMixHash     = 0.1
	// exhaustiveLimit is the largest chunks × dim searched exhaustively by
	// vector; above it, vectors re-rank the lexical candidates.
	exhaustiveLimit = 8 << 20
)

// Search ranks chunks for a query by the fusion of the lexical and the
// vector ranking. Matching pattern weights multiply the score (0 excludes);
// results are sorted by adjusted score.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	return ix.search(ctx, q, rankFused)
}

func (ix *Index) search(ctx context.Context, q Query, mode rankMode) ([]Hit, error) {
	ix.mu.RLock()
	m := defaultMix(ix.trained != nil, queryWords(q.Text))
	ix.mu.RUnlock()
	return ix.searchMix(ctx, q, mode, m)
}

// searchMix ranks with the given fusion weights.
func (ix *Index) searchMix(ctx context.Context, q Query, mode rankMode, m mix) ([]Hit, error) {
	if strings.TrimSpace(q.Text) == "" {
		return nil, fmt.Errorf("empty query")
	}
	if q.Max <= 0 {
		q.Max = 10
	}
	var qv []float32
	ix.mu.RLock()
	external := ix.hashEmb == nil
	ix.mu.RUnlock()
	if external && mode != rankLexical {
		qv = ix.queryVector(ctx, q.Text) // may call a remote service: not under the lock
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if !external && mode != rankLexical {
		qv = ix.queryVector(ctx, q.Text)
	}
	if qv != nil && len(qv) != ix.dim {
		qv = nil
	}
	// Lexical ranking.
	s := &scorer{scores: make([]float32, len(ix.chunks))}
	if mode != rankVector {
		qterms := queryTerms(q.Text)
		for t, w := range qterms {
			ix.scoreTerm(s, t, w)
		}
		if fileMix > 0 && len(s.touched) > 0 {
			fs := ix.fileScores(qterms)
			var topC, topF float32
			for _, id := range s.touched {
				topC = max(topC, s.scores[id])
				topF = max(topF, fs[ix.chunks[id].File])
			}
			if topC > 0 && topF > 0 {
				for _, id := range s.touched {
					s.scores[id] = float32((1-fileMix)*float64(s.scores[id]/topC) + fileMix*float64(fs[ix.chunks[id].File]/topF))
				}
			}
		}
	}
	if mode != rankVector {
		ix.addHistory(s, queryTerms(q.Text))
	}
	var cands []uint32
	var hs, ts []float64 // hashed and trained cosines of the candidates
	lexTop := func() []uint32 {
		return topK(s.touched, func(id uint32) float32 { return s.scores[id] }, max(lexicalDepth, q.Max))
	}
	switch {
	case mode == rankLexical || qv == nil:
		cands = lexTop()
	case mode != rankFused || ix.live*ix.dim <= exhaustiveLimit:
		all := make([]float32, len(ix.chunks))
		live := make([]uint32, 0, ix.live)
		for id := range ix.chunks {
			if !ix.chunks[id].Dead && ix.vscale[id] != 0 {
				switch mode {
				case rankVector:
					all[id] = ix.vectorScore(qv, uint32(id))
				case rankTrained:
					all[id] = ix.trainedScore(qv, uint32(id))
				default:
					all[id] = float32(m.hash)*ix.vectorScore(qv, uint32(id)) + float32(m.trained)*ix.trainedScore(qv, uint32(id))
				}
				live = append(live, uint32(id))
			}
		}
		cands = topK(live, func(id uint32) float32 { return all[id] }, max(vectorDepth, q.Max))
		if mode == rankFused {
			cands = union(lexTop(), cands)
		}
	default:
		cands = lexTop()
	}
	lex := make([]float64, len(cands))
	if qv != nil && mode != rankLexical {
		hs, ts = make([]float64, len(cands)), make([]float64, len(cands))
	}
	for i, id := range cands {
		lex[i] = float64(s.scores[id])
		if hs != nil {
			hs[i], ts[i] = float64(ix.vectorScore(qv, id)), float64(ix.trainedScore(qv, id))
		}
	}
	var fused []float64
	switch {
	case mode == rankLexical || hs == nil:
		fused = lex
	case mode == rankVector:
		fused = hs
	case mode == rankTrained:
		fused = ts
	default:
		fused = fuse(m, lex, hs, ts)
	}
	res := make([]scored, 0, len(cands))
	var weak []scored // below the vector floors: only when too few others
	for i, id := range cands {
		f := ix.byID[ix.chunks[id].File]
		if mode == rankFused && hs != nil && lex[i] <= 0 && hs[i] < minVectorOnly && (m.trained == 0 || ts[i] < minTrainedOnly) {
			if w := ix.weightOf(f.Path, q.Weights); w > 0 {
				near := max(hs[i], ts[i], 1e-9) * float64(f.Prior)
				weak = append(weak, scored{id: id, score: near, adjusted: near * w})
			}
			continue
		}
		// Min-max fusion puts the weakest candidate at 0; it still matched.
		score := max(fused[i], 1e-9) * float64(f.Prior)
		weight := ix.weightOf(f.Path, q.Weights)
		if weight == 0 || score <= 0 {
			continue
		}
		res = append(res, scored{id: id, score: score, adjusted: score * weight})
	}
	if mode == rankFused {
		ix.addSecondChunk(res)
	}
	byAdjusted := func(res []scored) {
		sort.Slice(res, func(i, j int) bool {
			if res[i].adjusted != res[j].adjusted {
				return res[i].adjusted > res[j].adjusted
			}
			return res[i].id < res[j].id
		})
	}
	byAdjusted(res)
	nearest := false
	if len(res) == 0 && len(weak) > 0 {
		// A semantic search always answers: with nothing above the floors,
		// the nearest chunks there are, marked as such.
		byAdjusted(weak)
		res, nearest = weak, true
	}
	if len(res) > q.Max {
		res = res[:q.Max]
	}
	top := 0.0
	for _, r := range res {
		top = math.Max(top, r.score)
	}
	hits := make([]Hit, 0, len(res))
	for _, r := range res {
		c := ix.chunks[r.id]
		f := ix.byID[c.File]
		hits = append(hits, Hit{Path: f.Path, Start: int(c.Start), End: int(c.End), Score: round(r.score / top), AdjustedScore: round(r.adjusted / top), Nearest: nearest})
	}
	return hits, nil
}

// addHistory lifts, for each file whose history matches the query
// (histLift), its best chunk by that share of the best chunk's score; a
// file that matched nothing else enters with its first chunk. One chunk a
// file: the history speaks of the file, and its other chunks would crowd
// out other files.
func (ix *Index) addHistory(s *scorer, qterms map[string]float64) {
	lift := ix.histLift(qterms)
	if len(lift) == 0 {
		return
	}
	var topC float32
	best := map[uint32]uint32{} // file → its best chunk
	for _, id := range s.touched {
		topC = max(topC, s.scores[id])
		f := ix.chunks[id].File
		if b, ok := best[f]; !ok || s.scores[id] > s.scores[b] {
			best[f] = id
		}
	}
	if topC == 0 {
		topC = 1
	}
	for p, v := range lift {
		f, ok := ix.files[p]
		if !ok || len(f.Chunks) == 0 || v <= 0 {
			continue
		}
		if id, ok := best[ix.chunks[f.Chunks[0]].File]; ok {
			s.scores[id] += topC * float32(v)
			continue
		}
		id := f.Chunks[0]
		if ix.chunks[id].Dead {
			continue
		}
		s.scores[id] = topC * float32(v)
		s.touched = append(s.touched, id)
	}
}

// weightOf is the product of the pattern weights matching path.
func (ix *Index) weightOf(path string, weights []Weight) float64 {
	weight := 1.0
	for _, w := range weights {
		if ok, _ := doublestar.Match(w.Glob, path); ok {
			weight *= w.Weight
		}
	}
	return weight
}

// addSecondChunk lifts every candidate by secondChunkShare of the score of
// its file's second best candidate: a file that matches in two places is
// likelier to be the one sought than a file with one equal match.
func (ix *Index) addSecondChunk(res []scored) {
	type top2 struct{ a, b float64 }
	best := make(map[uint32]top2)
	for _, r := range res {
		f := ix.chunks[r.id].File
		t := best[f]
		switch {
		case r.score > t.a:
			t.a, t.b = r.score, t.a
		case r.score > t.b:
			t.b = r.score
		}
		best[f] = t
	}
	for i := range res {
		if b := best[ix.chunks[res[i].id].File].b; b > 0 {
			lift := secondChunkShare * b
			res[i].adjusted *= (res[i].score + lift) / res[i].score
			res[i].score += lift
		}
	}
}

func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }

type scored struct {
	id              uint32
	score, adjusted float64
}

// topK returns the k ids of highest score (positive scores only), best
// first.
func topK(ids []uint32, score func(uint32) float32, k int) []uint32 {
	type e struct {
		id uint32
		s  float32
	}
	h := make([]e, 0, k)
	less := func(a, b e) bool { return a.s < b.s || a.s == b.s && a.id > b.id }
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			if r := l + 1; r < len(h) && less(h[r], h[l]) {
				l = r
			}
			if !less(h[l], h[i]) {
				return
			}
			h[i], h[l] = h[l], h[i]
			i = l
		}
	}
	for _, id := range ids {
		x := e{id, score(id)}
		if x.s <= 0 {
			continue
		}
		if len(h) < k {
			h = append(h, x)
			for i := len(h) - 1; i > 0; { // up
				p := (i - 1) / 2
				if !less(h[i], h[p]) {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
			continue
		}
		if less(h[0], x) {
			h[0] = x
			down(0)
		}
	}
	sort.Slice(h, func(i, j int) bool { return less(h[j], h[i]) })
	out := make([]uint32, len(h))
	for i, x := range h {
		out[i] = x.id
	}
	return out
}

// union appends the ids of b not in a.
func union(a, b []uint32) []uint32 {
	seen := make(map[uint32]bool, len(a)+len(b))
	for _, id := range a {
		seen[id] = true
	}
	for _, id := range b {
		if !seen[id] {
			seen[id] = true
			a = append(a, id)
		}
	}
	return a
}

// mix weighs the rankings fused: lexical, hashed and trained vectors.
type mix struct{ lex, hash, trained float64 }

// queryWords is the length of a query for defaultMix: its words, or more
// than shortQueryWords if it has several lines (a commit message or an
// issue with a body, however short).
func queryWords(text string) int {
	n := len(strings.Fields(text))
	if strings.Contains(strings.TrimSpace(text), "\n") {
		n = max(n, shortQueryWords+1)
	}
	return n
}

// defaultMix is the fusion of Search for a query of so many words, chosen
// on the dev splits (docs/code-search.md): with trained vectors, a short
// query (a phrase) leans on the vectors, a long one (a commit message, an
// issue) on the lexical ranking.
func defaultMix(trained bool, words int) mix {
	switch {
	case !trained:
		return mix{lex: fusionAlpha, hash: 1 - fusionAlpha}
	case words <= shortQueryWords:
		return mix{lex: shortMixLex, hash: shortMixHash, trained: 1 - shortMixLex - shortMixHash}
	}
	return mix{lex: longMixLex, hash: longMixHash, trained: 1 - longMixLex - longMixHash}
}

// fuse combines score lists over the same candidates into one: each is
// rescaled to [0,1] over the candidates and they are mixed.
func fuse(m mix, lex, hash, trained []float64) []float64 {
	out := make([]float64, len(lex))
	nl, nh, nt := minMax(lex), minMax(hash), minMax(trained)
	for i := range out {
		out[i] = m.lex*nl[i] + m.hash*nh[i] + m.trained*nt[i]
	}
	return out
}

// minMaxPopulation is the fewest candidates min-max scaling floors at the
// weakest one; below it the floor is 0, because among a handful of
// candidates the weakest would score 0 whatever it matched (and pattern
// weights could no longer lift it).
const minMaxPopulation = 10

// minMax rescales xs to [0,1] between the lowest (min(0, lowest) for fewer
// than minMaxPopulation candidates) and the highest; all equal positive
// scores become 1, all equal non-positive ones 0.
func minMax(xs []float64) []float64 {
	out := make([]float64, len(xs))
	if len(xs) == 0 {
		return out
	}
	lo, hi := xs[0], xs[0]
	if len(xs) < minMaxPopulation {
		lo = 0
	}
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	for i, x := range xs {
		switch {
		case hi > lo:
			out[i] = (x - lo) / (hi - lo)
		case x > 0:
			out[i] = 1
		}
	}
	return out
}

// Query term weights.
const (
	// summaryWeight weighs the terms of a long query's first line (the
	// subject of a commit message or an issue title) against its body.
	summaryWeight = 2.0
	// qtfPower damps repeated query terms: weight = count^qtfPower.
	qtfPower = 0.5
)

// queryTerms weighs the terms of a query.
func queryTerms(text string) map[string]float64 {
	counts := map[string]float64{}
	first, rest, multi := strings.Cut(strings.TrimSpace(text), "\n")
	Tokens(first, func(t string) {
		if queryStopwords[t] {
			return
		}
		if multi {
			counts[t] += summaryWeight
		} else {
			counts[t]++
		}
	})
	Tokens(rest, func(t string) {
		if !queryStopwords[t] {
			counts[t]++
		}
	})
	for t, n := range counts {
		counts[t] = math.Pow(n, qtfPower)
	}
	return counts
}

// queryStopwords are English words that carry no topic in a query (they
// stay indexed: code uses some as names).
var queryStopwords = termSet(`about above after again against all also am any because been before being below between both but could did doing down during each few further had has have having he her here hers herself him himself his its itself just me more most my myself no nor now off once only other our ours ourselves out over own same she should so some such than their theirs them themselves then there these they those through too under until up very was were where while who whom why will would your yours yourself yourselves its it's we'll we're we've don't doesn't isn't aren't wasn't weren't won't can't cannot currently instead still even already since though thus however therefore e.g i.e etc`)

// termSet is the set of the terms of a text.
func termSet(text string) map[string]bool {
	set := map[string]bool{}
	Tokens(text, func(t string) { set[t] = true })
	return set
}
