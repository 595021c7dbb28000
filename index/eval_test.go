package index

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/workspace"
)

// benchDir is ../shared/bench relative to the repository.
func benchDir(t *testing.T) string {
	for _, d := range []string{"../../shared/bench", "../shared/bench"} {
		if _, err := os.Stat(d); err == nil {
			return d
		}
	}
	t.Skip("../shared/bench not found")
	return ""
}

func readJSONL(t *testing.T, path string, fn func(line []byte)) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		fn(sc.Bytes())
	}
}

// cosqaDev loads the CoSQA dev split into an index with the given
// embedder (nil: the default) and returns its queries.
func cosqaDev(t *testing.T, emb Embedder) (*Index, []evalQuery) {
	dir := filepath.Join(benchDir(t), "cosqa-dev")
	ix := New(nil)
	ix.SetEmbedder(emb)
	readJSONL(t, filepath.Join(dir, "corpus.jsonl"), func(line []byte) {
		var d struct{ ID, Text string }
		json.Unmarshal(line, &struct {
			ID   *string `json:"_id"`
			Text *string `json:"text"`
		}{&d.ID, &d.Text})
		ix.AddContent(t.Context(), d.ID+".py", []byte(d.Text))
	})
	gold := map[string]string{}
	data, _ := os.ReadFile(filepath.Join(dir, "qrels-dev.tsv"))
	for _, l := range strings.Split(string(data), "\n")[1:] {
		f := strings.Split(l, "\t")
		if len(f) >= 2 {
			gold[f[0]] = f[1] + ".py"
		}
	}
	var qs []evalQuery
	readJSONL(t, filepath.Join(dir, "queries-dev.jsonl"), func(line []byte) {
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		json.Unmarshal(line, &q)
		if g, ok := gold[q.ID]; ok {
			qs = append(qs, evalQuery{q.Text, map[string]bool{g: true}})
		}
	})
	return ix, qs
}

// benchEmbedder is the embedder the benchmarks use: the default, or the
// weights in $AUTARCH_EMBEDDER_WEIGHTS (to measure a model before shipping
// it).
func benchEmbedder(t *testing.T) Embedder {
	path := os.Getenv("AUTARCH_EMBEDDER_WEIGHTS")
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var w EmbedderWeights
	if err := w.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	return &BuiltinEmbedder{Hash: NewHashEmbedder(DefaultDim), Trained: NewTrainedEmbedder(&w)}
}

// evalQuery is a query and its relevant paths.
type evalQuery struct {
	text string
	gold map[string]bool
}

// perQuery holds one ranking's metrics per query.
type perQuery struct {
	ndcg, mrr, r1, r5, r10, r100 []float64
	ms                           float64
	lat                          []time.Duration
}

// evaluate runs the queries (chunks collapsed to files) and returns the
// metrics of each.
func evaluate(t *testing.T, ix *Index, qs []evalQuery, mode rankMode, m *mix, depth int) perQuery {
	var p perQuery
	start := time.Now()
	for _, q := range qs {
		t0 := time.Now()
		var hits []Hit
		if m != nil {
			hits, _ = ix.searchMix(t.Context(), Query{Text: q.text, Max: depth}, mode, *m)
		} else {
			hits, _ = ix.search(t.Context(), Query{Text: q.text, Max: depth}, mode)
		}
		p.lat = append(p.lat, time.Since(t0))
		var files []string
		seen := map[string]bool{}
		for _, h := range hits {
			if !seen[h.Path] {
				seen[h.Path] = true
				files = append(files, h.Path)
			}
		}
		recall := func(k int) float64 {
			c := 0
			for i := 0; i < k && i < len(files); i++ {
				if q.gold[files[i]] {
					c++
				}
			}
			return float64(c) / float64(len(q.gold))
		}
		var rr, dcg float64
		for i, f := range files {
			if q.gold[f] {
				if rr == 0 {
					rr = 1 / float64(i+1)
				}
				if i < 10 {
					dcg += 1 / math.Log2(float64(i+2))
				}
			}
		}
		var ideal float64
		for i := range min(len(q.gold), 10) {
			ideal += 1 / math.Log2(float64(i+2))
		}
		p.ndcg = append(p.ndcg, dcg/ideal)
		p.mrr = append(p.mrr, rr)
		p.r1, p.r5, p.r10, p.r100 = append(p.r1, recall(1)), append(p.r5, recall(5)), append(p.r10, recall(10)), append(p.r100, recall(100))
	}
	p.ms = float64(time.Since(start).Microseconds()) / float64(len(qs)) / 1000
	return p
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(max(len(xs), 1))
}

// bootstrap is the mean difference b−a over queries and its 95% paired
// bootstrap interval (10,000 resamples, fixed seed).
func bootstrap(a, b []float64) (float64, float64, float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := len(a)
	diffs := make([]float64, 10000)
	for r := range diffs {
		var s float64
		for range n {
			i := rng.IntN(n)
			s += b[i] - a[i]
		}
		diffs[r] = s / float64(n)
	}
	sort.Float64s(diffs)
	var d float64
	for i := range a {
		d += b[i] - a[i]
	}
	return d / float64(n), diffs[250], diffs[9749]
}

// todayMix is the fusion before the trained vectors (the baseline of the
// bootstrap intervals): lexical 0.7, hashed vectors 0.3.
var todayMix = mix{lex: fusionAlpha, hash: 1 - fusionAlpha}

// TestQualityCoSQA prints nDCG@10, MRR and Recall@10 on the CoSQA dev split
// (AUTARCH_BENCH_INDEX=1; make bench-index).
func TestQualityCoSQA(t *testing.T) {
	if os.Getenv("AUTARCH_BENCH_INDEX") == "" {
		t.Skip("set AUTARCH_BENCH_INDEX=1")
	}
	ix, qs := cosqaDev(t, benchEmbedder(t))
	fmt.Printf("\nCoSQA dev (%d queries, %d functions)\n| method | nDCG@10 | MRR | R@10 | R@100 | ms/query |\n|---|---|---|---|---|---|\n", len(qs), ix.Stats().Files)
	base := evaluate(t, ix, qs, rankFused, &todayMix, 100)
	var fused perQuery
	for _, m := range rankModes(ix) {
		p := evaluate(t, ix, qs, m.mode, m.mix, 100)
		if m.mode == rankFused && m.mix == nil {
			fused = p
		}
		fmt.Printf("| %s | %.3f | %.3f | %.3f | %.3f | %.2f |\n", m.name, mean(p.ndcg), mean(p.mrr), mean(p.r10), mean(p.r100), p.ms)
	}
	d, lo, hi := bootstrap(base.ndcg, fused.ndcg)
	fmt.Printf("\nfused (Search) − today's default: nDCG@10 %+.3f [%+.3f, %+.3f] (95%% paired bootstrap)\n", d, lo, hi)
}

// evalMode is a ranking the eval compares (mix nil: Search's).
type evalMode struct {
	name string
	mode rankMode
	mix  *mix
}

// rankModes are the rankings the eval compares.
func rankModes(ix *Index) []evalMode {
	ms := []evalMode{{"lexical BM25F only", rankLexical, nil}, {"vectors only (" + NewHashEmbedder(DefaultDim).Name() + ")", rankVector, nil}}
	if ix.trained != nil {
		ms = append(ms, evalMode{"vectors only (" + ix.trained.Name() + ")", rankTrained, nil},
			evalMode{"fused lexical + hashed (today's default)", rankFused, &todayMix},
			evalMode{"fused lexical + trained", rankFused, &mix{lex: 0.6, trained: 0.4}})
	}
	return append(ms, evalMode{"fused (Search)", rankFused, nil})
}

// TestQualityGoLoc prints file-level R@1/5/10 and MRR on the Go
// localization dev split over the whole $(go env GOROOT)/src, plus the
// speed and size figures.
func TestQualityGoLoc(t *testing.T) {
	if os.Getenv("AUTARCH_BENCH_INDEX") == "" {
		t.Skip("set AUTARCH_BENCH_INDEX=1")
	}
	root, err := workspace.Open(filepath.Join(runtime.GOROOT(), "src"))
	if err != nil {
		t.Fatal(err)
	}
	ix := New(root)
	ix.SetEmbedder(benchEmbedder(t))
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	start := time.Now()
	if err := ix.Build(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	build := time.Since(start)
	buildHWM := peakRSS()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	st := ix.Stats()
	var indexedBytes int64
	for rel := range ix.files {
		if fi, err := os.Stat(filepath.Join(root.Dir(), filepath.FromSlash(rel))); err == nil {
			indexedBytes += fi.Size()
		}
	}
	rows := golocDev(t)
	fmt.Printf("\nGo localization dev (%d queries, whole $(go env GOROOT)/src; chunks collapsed to files)\n| method | R@1 | R@5 | R@10 | MRR | ms/query |\n|---|---|---|---|---|---|\n", len(rows))
	var lat []time.Duration
	base := evaluate(t, ix, rows, rankFused, &todayMix, 200)
	var fused perQuery
	for _, m := range rankModes(ix) {
		p := evaluate(t, ix, rows, m.mode, m.mix, 200)
		if m.mode == rankFused && m.mix == nil {
			fused, lat = p, p.lat
		}
		fmt.Printf("| %s | %.3f | %.3f | %.3f | %.3f | %.2f |\n", m.name, mean(p.r1), mean(p.r5), mean(p.r10), mean(p.mrr), p.ms)
	}
	d, lo, hi := bootstrap(base.r10, fused.r10)
	d2, lo2, hi2 := bootstrap(base.mrr, fused.mrr)
	fmt.Printf("\nfused (Search) − today's default: R@10 %+.3f [%+.3f, %+.3f], MRR %+.3f [%+.3f, %+.3f] (95%% paired bootstrap)\n", d, lo, hi, d2, lo2, hi2)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	// One-file update until a search sees it, on a copy-free path: re-add
	// net/http/server.go's content with a new word appended.
	data, _ := os.ReadFile(filepath.Join(root.Dir(), "net/http/server.go"))
	t0 := time.Now()
	ix.AddContent(t.Context(), "net/http/server.go", append(data, []byte("\n// zqxjkupdateprobe\n")...))
	found, _ := ix.Search(t.Context(), Query{Text: "zqxjkupdateprobe", Max: 1})
	update := time.Since(t0)
	if len(found) == 0 {
		t.Error("update not visible")
	}
	state := t.TempDir()
	if err := ix.Save(state); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(state, indexFile))
	hwm := peakRSS()
	fmt.Printf("\n| speed and size | value |\n|---|---|\n| files / chunks / terms | %d / %d / %d |\n| cold index | %s (%.0f files/s, %.1f MB/s of %d MB indexed) |\n| query p50 / p95 | %s / %s |\n| heap after build | %d MB |\n| one-file update visible | %s |\n| index size on disk | %d MB |\n| peak RSS after build / at the end (whole test process) | %s / %s |\n",
		st.Files, st.Chunks, st.Terms, build.Round(time.Millisecond), float64(st.Files)/build.Seconds(), float64(indexedBytes)/1e6/build.Seconds(), indexedBytes/1e6,
		lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*95/100].Round(time.Microsecond), (ms.HeapAlloc-ms0.HeapAlloc)>>20, update.Round(time.Microsecond), fi.Size()>>20, buildHWM, hwm)
}

// golocDev reads the Go localization dev split.
func golocDev(t *testing.T) []evalQuery {
	var rows []evalQuery
	for _, r := range locRows(t, filepath.Join(benchDir(t), "goloc-dev", "dev.jsonl")) {
		rows = append(rows, r.evalQuery)
	}
	return rows
}

// locRow is a localization row: a query, its gold files and (golochist)
// its repository.
type locRow struct {
	evalQuery
	repo string
}

// locRows reads a localization split ({"repo"?, "query", "gold"} rows).
func locRows(t *testing.T, path string) []locRow {
	var rows []locRow
	readJSONL(t, path, func(line []byte) {
		var r struct {
			Repo  string   `json:"repo"`
			Query string   `json:"query"`
			Gold  []string `json:"gold"`
		}
		json.Unmarshal(line, &r)
		gold := map[string]bool{}
		for _, g := range r.Gold {
			gold[g] = true
		}
		rows = append(rows, locRow{evalQuery{r.Query, gold}, r.Repo})
	})
	return rows
}

// peakRSS is the process's peak resident set size so far.
func peakRSS() string {
	status, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:"))
		}
	}
	return "?"
}

// TestTuneMix prints the fusion grid on the dev splits
// (AUTARCH_TUNE_MIX=cosqa or goloc; AUTARCH_EMBEDDER_WEIGHTS picks the
// weights).
func TestTuneMix(t *testing.T) {
	set := os.Getenv("AUTARCH_TUNE_MIX")
	if set == "" {
		t.Skip("set AUTARCH_TUNE_MIX=cosqa or goloc")
	}
	var ix *Index
	var qs []evalQuery
	depth := 100
	if set == "cosqa" {
		ix, qs = cosqaDev(t, benchEmbedder(t))
	} else {
		root, err := workspace.Open(filepath.Join(runtime.GOROOT(), "src"))
		if err != nil {
			t.Fatal(err)
		}
		ix = New(root)
		ix.SetEmbedder(benchEmbedder(t))
		if err := ix.Build(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		qs, depth = golocDev(t), 200
	}
	fmt.Printf("| lexical | hashed | trained | nDCG@10 | R@10 | MRR |\n|---|---|---|---|---|---|\n")
	for _, l := range []float64{0.4, 0.5, 0.6, 0.7, 0.8} {
		for _, h := range []float64{0, 0.1, 0.2, 0.3} {
			if l+h > 1 {
				continue
			}
			m := mix{lex: l, hash: h, trained: 1 - l - h}
			var p perQuery
			if set == "cosqa" {
				p = evaluate(t, ix, qs, rankFused, &m, depth)
			} else { // the long mix; short queries keep Search's
				var short, long []evalQuery
				for _, q := range qs {
					if queryWords(q.text) <= shortQueryWords {
						short = append(short, q)
					} else {
						long = append(long, q)
					}
				}
				a, b := evaluate(t, ix, short, rankFused, nil, depth), evaluate(t, ix, long, rankFused, &m, depth)
				p.ndcg, p.r10, p.mrr = append(a.ndcg, b.ndcg...), append(a.r10, b.r10...), append(a.mrr, b.mrr...)
			}
			fmt.Printf("| %.1f | %.1f | %.1f | %.3f | %.3f | %.3f |\n", l, h, m.trained, mean(p.ndcg), mean(p.r10), mean(p.mrr))
		}
	}
}
