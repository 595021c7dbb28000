package index

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
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

// TestQualityCoSQA prints nDCG@10, MRR and Recall@10 on the CoSQA dev split
// (AUTARCH_BENCH_INDEX=1; make bench-index).
func TestQualityCoSQA(t *testing.T) {
	if os.Getenv("AUTARCH_BENCH_INDEX") == "" {
		t.Skip("set AUTARCH_BENCH_INDEX=1")
	}
	dir := filepath.Join(benchDir(t), "cosqa-dev")
	ix := New(nil)
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
	type query struct{ text, gold string }
	var qs []query
	readJSONL(t, filepath.Join(dir, "queries-dev.jsonl"), func(line []byte) {
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		json.Unmarshal(line, &q)
		if g, ok := gold[q.ID]; ok {
			qs = append(qs, query{q.Text, g})
		}
	})
	fmt.Printf("\nCoSQA dev (%d queries, %d functions)\n| method | nDCG@10 | MRR | R@10 | R@100 | ms/query |\n|---|---|---|---|---|---|\n", len(qs), ix.Stats().Files)
	for _, m := range rankModes {
		var ndcg, mrr, r10, r100 float64
		start := time.Now()
		for _, q := range qs {
			hits, _ := ix.search(t.Context(), Query{Text: q.text, Max: 100}, m.mode)
			for i, h := range hits {
				if h.Path == q.gold {
					mrr += 1 / float64(i+1)
					r100++
					if i < 10 {
						ndcg += 1 / math.Log2(float64(i+2))
						r10++
					}
					break
				}
			}
		}
		n := float64(len(qs))
		fmt.Printf("| %s | %.3f | %.3f | %.3f | %.3f | %.2f |\n", m.name, ndcg/n, mrr/n, r10/n, r100/n, float64(time.Since(start).Microseconds())/n/1000)
	}
}

// rankModes are the rankings the eval compares.
var rankModes = []struct {
	name string
	mode rankMode
}{{"lexical BM25F only", rankLexical}, {"vectors only (" + NewHashEmbedder(DefaultDim).Name() + ")", rankVector}, {"fused (Search)", rankFused}}

// TestQualityGoLoc prints file-level R@1/5/10 and MRR on the Go
// localization dev split over the whole $(go env GOROOT)/src, plus the
// speed and size figures.
func TestQualityGoLoc(t *testing.T) {
	if os.Getenv("AUTARCH_BENCH_INDEX") == "" {
		t.Skip("set AUTARCH_BENCH_INDEX=1")
	}
	dir := filepath.Join(benchDir(t), "goloc-dev")
	root, err := workspace.Open(filepath.Join(runtime.GOROOT(), "src"))
	if err != nil {
		t.Fatal(err)
	}
	ix := New(root)
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
	type row struct {
		query string
		gold  map[string]bool
	}
	var rows []row
	readJSONL(t, filepath.Join(dir, "dev.jsonl"), func(line []byte) {
		var r struct {
			Query string   `json:"query"`
			Gold  []string `json:"gold"`
		}
		json.Unmarshal(line, &r)
		gold := map[string]bool{}
		for _, g := range r.Gold {
			gold[g] = true
		}
		rows = append(rows, row{r.Query, gold})
	})
	fmt.Printf("\nGo localization dev (%d queries, whole $(go env GOROOT)/src; chunks collapsed to files)\n| method | R@1 | R@5 | R@10 | MRR | ms/query |\n|---|---|---|---|---|---|\n", len(rows))
	var lat []time.Duration
	for _, m := range rankModes {
		var r1, r5, r10, mrr float64
		start := time.Now()
		for _, r := range rows {
			t0 := time.Now()
			hits, _ := ix.search(t.Context(), Query{Text: r.query, Max: 200}, m.mode)
			if m.mode == rankFused {
				lat = append(lat, time.Since(t0))
			}
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
					if r.gold[files[i]] {
						c++
					}
				}
				return float64(c) / float64(len(r.gold))
			}
			r1 += recall(1)
			r5 += recall(5)
			r10 += recall(10)
			for i, f := range files {
				if r.gold[f] {
					mrr += 1 / float64(i+1)
					break
				}
			}
		}
		N := float64(len(rows))
		fmt.Printf("| %s | %.3f | %.3f | %.3f | %.3f | %.2f |\n", m.name, r1/N, r5/N, r10/N, mrr/N, float64(time.Since(start).Microseconds())/N/1000)
	}
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
	fi, _ := os.Stat(filepath.Join(state, "index.gob"))
	hwm := peakRSS()
	fmt.Printf("\n| speed and size | value |\n|---|---|\n| files / chunks / terms | %d / %d / %d |\n| cold index | %s (%.0f files/s, %.1f MB/s of %d MB indexed) |\n| query p50 / p95 | %s / %s |\n| heap after build | %d MB |\n| one-file update visible | %s |\n| index size on disk | %d MB |\n| peak RSS after build / at the end (whole test process) | %s / %s |\n",
		st.Files, st.Chunks, st.Terms, build.Round(time.Millisecond), float64(st.Files)/build.Seconds(), float64(indexedBytes)/1e6/build.Seconds(), indexedBytes/1e6,
		lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*95/100].Round(time.Microsecond), (ms.HeapAlloc-ms0.HeapAlloc)>>20, update.Round(time.Microsecond), fi.Size()>>20, buildHWM, hwm)
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
