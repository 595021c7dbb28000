package index

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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

// TestQualityGoLocHist measures golochist-dev (AUTARCH_BENCH_INDEX=1) with
// and without each file's history.
func TestQualityGoLocHist(t *testing.T) {
	if os.Getenv("AUTARCH_BENCH_INDEX") == "" {
		t.Skip("set AUTARCH_BENCH_INDEX=1")
	}
	dir := filepath.Join(benchDir(t), "golochist-dev")
	byRepo := map[string][]evalQuery{}
	for _, r := range locRows(t, filepath.Join(dir, "dev.jsonl")) {
		byRepo[r.repo] = append(byRepo[r.repo], r.evalQuery)
	}
	var without, with perQuery
	tuned := map[histTune][]float64{}
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
		ix := New(root)
		ix.SetEmbedder(benchEmbedder(t))
		if err := ix.Build(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		a := evaluate(t, ix, byRepo[repo], rankFused, nil, 200)
		ix.AddHistory(gitHistory(t, work), "")
		if os.Getenv("AUTARCH_TUNE_HIST") != "" {
			for _, mx := range []float64{0.25, 0.5, 0.75, 1} {
				for _, hl := range []float64{3, 10, 30} {
					k := histTune{mx, hl}
					ix.histTune, ix.histTerms = k, nil
					p := evaluate(t, ix, byRepo[repo], rankFused, nil, 200)
					tuned[k] = append(tuned[k], p.mrr...)
				}
			}
			ix.histTune, ix.histTerms = histTune{mix: histMix, halfLife: histHalfLife}, nil
		}
		b := evaluate(t, ix, byRepo[repo], rankFused, nil, 200)
		fmt.Printf("%-20s without: R@10 %.3f MRR %.3f | with history: R@10 %.3f MRR %.3f\n", repo, mean(a.r10), mean(a.mrr), mean(b.r10), mean(b.mrr))
		without.r10, without.mrr = append(without.r10, a.r10...), append(without.mrr, a.mrr...)
		with.r10, with.mrr = append(with.r10, b.r10...), append(with.mrr, b.mrr...)
		root.Close()
	}
	for k, v := range tuned {
		fmt.Printf("tune mix %.2f half-life %.0f: MRR %.3f\n", k.mix, k.halfLife, mean(v))
	}
	d, lo, hi := bootstrap(without.mrr, with.mrr)
	fmt.Printf("\ngolochist-dev (%d queries) | R@10 | MRR |\n|---|---|---|\n| without history | %.3f | %.3f |\n| with history | %.3f | %.3f |\nMRR %+.3f [%+.3f, %+.3f] (95%% paired bootstrap)\n",
		len(with.mrr), mean(without.r10), mean(without.mrr), mean(with.r10), mean(with.mrr), d, lo, hi)
}
