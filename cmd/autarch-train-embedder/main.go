// Command autarch-train-embedder trains the code embedder shipped in
// index/embedder/code-embedder.bin from source trees on this machine
// (make train-embedder; docs/code-search.md). It never reads the benchmark
// sets.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/autarch-dev/autarch/index/embedtrain"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "autarch-train-embedder:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg := embedtrain.DefaultConfig()
	out := flag.String("out", "index/embedder/code-embedder.bin", "where the int8 weights are written")
	use := flag.String("sources", "goroot,pystd,pydist,gomod,pyenv", "comma-separated sources: goroot, pystd, pydist, gomod, pyenv, gcloud")
	kinds := flag.String("kinds", "doc,name,comment", "comma-separated pair kinds kept: doc, name, comment")
	maxPairs := flag.Int("max-pairs", 0, "cap on the pairs of each source (0: the defaults)")
	flag.Float64Var(&cfg.Epochs, "epochs", cfg.Epochs, "passes over the pairs")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed")
	flag.IntVar(&cfg.Workers, "workers", cfg.Workers, "goroutines")
	flag.IntVar(&cfg.Vocab, "vocab", cfg.Vocab, "most terms kept")
	flag.IntVar(&cfg.Adjusted, "adjusted", cfg.Adjusted, "terms with separate query and code rows")
	flag.IntVar(&cfg.HardBits, "hard-bits", cfg.HardBits, "group batches by a hash of this many bits (0: random batches)")
	flag.BoolVar(&cfg.HardNegatives, "hard-negatives", cfg.HardNegatives, "add one lexically mined hard negative per pair to each batch")
	pyRepeat := flag.Int("python-repeat", 1, "times each Python pair is trained on per epoch")
	gomodPairs := flag.Int("gomod-pairs", 60000, "cap on the Go module cache's pairs")
	pyenvPairs := flag.Int("pyenv-pairs", 200000, "cap on the pyenv trees' pairs (0: all)")
	flag.Float64Var(&cfg.LR, "lr", cfg.LR, "Adam's initial learning rate")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg.Log = func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...)) }

	sources, err := sourceList(*use, *maxPairs, *gomodPairs, *pyenvPairs)
	if err != nil {
		return err
	}
	start := time.Now()
	seen := map[uint64]bool{}
	var pairs []embedtrain.Pair
	for _, s := range sources {
		ps, err := embedtrain.Extract(ctx, s, seen)
		if err != nil {
			return fmt.Errorf("extracting %s: %w", s.Name, err)
		}
		counts := map[string]int{}
		kept := ps[:0]
		for _, p := range ps {
			if strings.Contains(","+*kinds+",", ","+p.Kind+",") {
				counts[p.Kind]++
				kept = append(kept, p)
			}
		}
		ps = kept
		log.Info("pairs", "source", s.Name, "dir", s.Dir, "pairs", len(ps), "doc", counts["doc"], "name", counts["name"], "comment", counts["comment"])
		repeat := 1
		if s.Lang == "python" {
			repeat = max(1, *pyRepeat)
		}
		for range repeat {
			pairs = append(pairs, ps...)
		}
	}
	log.Info("extracted", "pairs", len(pairs), "took", time.Since(start).Round(time.Second))
	w, err := embedtrain.Train(ctx, pairs, cfg)
	if err != nil {
		return err
	}
	data, err := w.MarshalBinary()
	if err != nil {
		return err
	}
	tmp := *out + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, *out); err != nil {
		return err
	}
	log.Info("wrote", "file", *out, "MB", len(data)>>20, "took", time.Since(start).Round(time.Second))
	return nil
}

// sourceList resolves the named sources on this machine; default caps keep
// make train-embedder under 30 minutes on 2 cores.
func sourceList(names string, maxPairs, gomodPairs, pyenvPairs int) ([]embedtrain.Source, error) {
	known := map[string]embedtrain.Source{
		"goroot": {Name: "goroot", Dir: filepath.Join(runtime.GOROOT(), "src"), Lang: "go"},
		"pydist": {Name: "pydist", Dir: "/usr/lib/python3/dist-packages", Lang: "python"},
		"gomod":  {Name: "gomod", Dir: goEnv("GOMODCACHE"), Lang: "go", MaxPairs: gomodPairs},
		"gcloud": {Name: "gcloud", Dir: "/usr/lib/google-cloud-sdk/lib", Lang: "python"},
	}
	if home, err := os.UserHomeDir(); err == nil {
		known["pyenv"] = embedtrain.Source{Name: "pyenv", Dir: filepath.Join(home, ".pyenv", "versions"), Lang: "python", MaxPairs: pyenvPairs}
	}
	if std, _ := filepath.Glob("/usr/lib/python3.[0-9]*"); len(std) > 0 {
		sort.Strings(std)
		known["pystd"] = embedtrain.Source{Name: "pystd", Dir: std[len(std)-1], Lang: "python"}
	}
	var out []embedtrain.Source
	for _, n := range strings.Split(names, ",") {
		s, ok := known[strings.TrimSpace(n)]
		if !ok {
			return nil, fmt.Errorf("unknown or absent source %q: use goroot, pystd, pydist, gomod, pyenv or gcloud", n)
		}
		if strings.Contains(s.Dir, "bench") {
			return nil, fmt.Errorf("source %s at %s looks like a benchmark set: never trained on", s.Name, s.Dir)
		}
		if _, err := os.Stat(s.Dir); err != nil {
			return nil, fmt.Errorf("source %s is not on this machine (%w): leave it out of -sources (the shipped weights differ then)", s.Name, err)
		}
		if maxPairs > 0 {
			s.MaxPairs = maxPairs
		}
		out = append(out, s)
	}
	return out, nil
}

func goEnv(key string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	b, err := exec.Command("go", "env", key).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
