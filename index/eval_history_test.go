package index

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/workspace"
)

// gitHistory reads a repository's history as FileCommits, newest first
// (the test's own reader; the product's is codesearch's, through
// workspace/git).
func gitHistory(t *testing.T, dir string) []FileCommit {
	t.Helper()
	cmd := exec.Command("git", "-C", dir, "log", "--no-renames", "--name-only", "--format=%x1e%H%n%B%x1f")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var commits []FileCommit
	for _, rec := range strings.Split(string(out), "\x1e")[1:] {
		head, files, _ := strings.Cut(rec, "\x1f")
		hash, msg, _ := strings.Cut(head, "\n")
		c := FileCommit{Hash: hash, Message: msg}
		for _, f := range strings.Fields(files) {
			c.Paths = append(c.Paths, f)
		}
		commits = append(commits, c)
	}
	return commits
}

// histRepo is one golochist-dev repository indexed, its queries and its
// history.
type histRepo struct {
	name    string
	ix      *Index
	rows    []evalQuery
	commits []FileCommit
}

// golochistDev clones and indexes the golochist-dev repositories (without
// history).
func golochistDev(t *testing.T) []histRepo {
	dir := filepath.Join(benchDir(t), "golochist-dev")
	byRepo := map[string][]evalQuery{}
	for _, r := range locRows(t, filepath.Join(dir, "dev.jsonl")) {
		byRepo[r.repo] = append(byRepo[r.repo], r.evalQuery)
	}
	var repos []histRepo
	for _, repo := range []string{"caddyserver/caddy", "nats-io/nats.go", "junegunn/fzf", "labstack/echo"} {
		work := filepath.Join(t.TempDir(), "repo")
		bundle, _ := filepath.Abs(filepath.Join(dir, strings.ReplaceAll(repo, "/", "_")+".bundle"))
		if out, err := exec.Command("git", "clone", "-q", bundle, work).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v %s", repo, err, out)
		}
		root, err := workspace.Open(work)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { root.Close() })
		ix := New(root)
		ix.SetEmbedder(benchEmbedder(t))
		if err := ix.Build(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		repos = append(repos, histRepo{repo, ix, byRepo[repo], gitHistory(t, work)})
	}
	return repos
}

// withHistory records the repository's whole history afresh under tune.
func (r histRepo) withHistory(tune histTune) {
	r.ix.mu.Lock()
	r.ix.commits, r.ix.histTune = nil, tune
	r.ix.mu.Unlock()
	r.ix.AddHistory(r.commits, "")
}

// withoutHistory drops the repository's history.
func (r histRepo) withoutHistory() {
	r.ix.mu.Lock()
	r.ix.commits, r.ix.histTerms = nil, nil
	r.ix.mu.Unlock()
}

// TestQualityGoLocHist measures golochist-dev (AUTARCH_BENCH_INDEX=1) with
// and without each file's history, from the files of the first 200 chunks
// found and of the first 50 (the split's procedure: autarch search --max 50).
func TestQualityGoLocHist(t *testing.T) {
	if os.Getenv("AUTARCH_BENCH_INDEX") == "" {
		t.Skip("set AUTARCH_BENCH_INDEX=1")
	}
	depths := []int{200, 50}
	without, with := make([]perQuery, len(depths)), make([]perQuery, len(depths))
	for _, r := range golochistDev(t) {
		r.withoutHistory()
		for i, d := range depths {
			a := evaluate(t, r.ix, r.rows, rankFused, nil, d)
			without[i].r10, without[i].mrr = append(without[i].r10, a.r10...), append(without[i].mrr, a.mrr...)
		}
		t0 := time.Now()
		r.withHistory(defaultHistTune())
		r.ix.mu.RLock()
		r.ix.histIndexLocked()
		r.ix.mu.RUnlock()
		cost := time.Since(t0)
		for i, d := range depths {
			b := evaluate(t, r.ix, r.rows, rankFused, nil, d)
			with[i].r10, with[i].mrr = append(with[i].r10, b.r10...), append(with[i].mrr, b.mrr...)
		}
		n := len(r.rows)
		fmt.Printf("%-20s without: R@10 %.3f MRR %.3f | with history: R@10 %.3f MRR %.3f | %d commits recorded and indexed in %s\n",
			r.name, mean(without[0].r10[len(without[0].r10)-n:]), mean(without[0].mrr[len(without[0].mrr)-n:]),
			mean(with[0].r10[len(with[0].r10)-n:]), mean(with[0].mrr[len(with[0].mrr)-n:]), len(r.ix.commits), cost.Round(time.Millisecond))
	}
	fmt.Printf("\ngolochist-dev (%d queries) | R@10 | MRR | MRR lift (95%% paired bootstrap) |\n|---|---|---|---|\n", len(with[0].mrr))
	for i, d := range depths {
		diff, lo, hi := bootstrap(without[i].mrr, with[i].mrr)
		fmt.Printf("| without history, %d chunks | %.3f | %.3f | |\n| with history, %d chunks | %.3f | %.3f | %+.3f [%+.3f, %+.3f] |\n",
			d, mean(without[i].r10), mean(without[i].mrr), d, mean(with[i].r10), mean(with[i].mrr), diff, lo, hi)
	}
}

// TestTuneHist prints golochist-dev R@10/MRR for variants of the history
// field (AUTARCH_TUNE_HIST=1; dev split only). Tried on 2026-11-29 (MRR,
// 200 chunks; without history 0.733, the per-file field alone 0.755;
// differences of ±0.02 are noise at 240 rows):
//
//   - per-file field: boilerplate kept 0.756; 1/log2(1+files)^0.5–2 per
//     commit 0.747–0.751; subject ×1.5–3 0.748–0.753; half-life by commits
//     made since (50, 200, 1000) 0.742–0.756 instead of the file's own
//     (3: 0.763, 10: 0.755, 30: 0.747); mix 0.3–1 0.730–0.745;
//   - as a BM25F field of the file-level ranking (weight 0.5–4) instead of
//     a list: 0.747–0.749;
//   - per commit (each message a document, its files share its score),
//     with the per-file field: 0.758–0.779 (top 10/50/all commits: all
//     best; 1/files^0.5–1 or 1/log2(1+files)^0.5–2 no better; a half-life
//     of 300 commits +0.007 MRR but −0.007 R@10);
//   - the lift on every chunk of a file (0.777) crowds a 50-hit list (R@10
//     0.875); on the best chunk only 0.772, R@10 0.892 of 50 chunks.
func TestTuneHist(t *testing.T) {
	if os.Getenv("AUTARCH_TUNE_HIST") == "" {
		t.Skip("set AUTARCH_TUNE_HIST=1")
	}
	base := defaultHistTune()
	type variant struct {
		name string
		tune histTune
	}
	vs := []variant{{"default", base}}
	add := func(name string, f func(*histTune)) {
		v := base
		f(&v)
		vs = append(vs, variant{name, v})
	}
	add("per file only, half-life 10", func(h *histTune) { h.cmix, h.halfLife = 0, 10 })
	add("per file only", func(h *histTune) { h.cmix = 0 })
	add("per commit only", func(h *histTune) { h.mix = 0 })
	for _, hl := range []float64{3, 10} {
		for _, cm := range []float64{0.25, 0.35} {
			add(fmt.Sprintf("half-life %.0f, commit mix %.2f", hl, cm), func(h *histTune) { h.halfLife, h.cmix = hl, cm })
		}
	}
	for _, mx := range []float64{0.35, 0.75} {
		add(fmt.Sprintf("file mix %.2f", mx), func(h *histTune) { h.mix = mx })
	}
	repos := golochistDev(t)
	var without, without50 perQuery
	for _, r := range repos {
		r.withoutHistory()
		a, a50 := evaluate(t, r.ix, r.rows, rankFused, nil, 200), evaluate(t, r.ix, r.rows, rankFused, nil, 50)
		without.r10, without.mrr = append(without.r10, a.r10...), append(without.mrr, a.mrr...)
		without50.r10, without50.mrr = append(without50.r10, a50.r10...), append(without50.mrr, a50.mrr...)
	}
	fmt.Printf("| variant | R@10 | MRR | R@10, MRR of 50 chunks | per repo MRR |\n|---|---|---|---|---|\n| without history | %.3f | %.3f | %.3f, %.3f | |\n", mean(without.r10), mean(without.mrr), mean(without50.r10), mean(without50.mrr))
	for _, v := range vs {
		var p, p50 perQuery
		var per []string
		for _, r := range repos {
			r.withHistory(v.tune)
			b, b50 := evaluate(t, r.ix, r.rows, rankFused, nil, 200), evaluate(t, r.ix, r.rows, rankFused, nil, 50)
			p.r10, p.mrr = append(p.r10, b.r10...), append(p.mrr, b.mrr...)
			p50.r10, p50.mrr = append(p50.r10, b50.r10...), append(p50.mrr, b50.mrr...)
			per = append(per, fmt.Sprintf("%.3f", mean(b.mrr)))
		}
		fmt.Printf("| %s | %.3f | %.3f | %.3f, %.3f | %s |\n", v.name, mean(p.r10), mean(p.mrr), mean(p50.r10), mean(p50.mrr), strings.Join(per, " "))
	}
}
