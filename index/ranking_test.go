package index

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace"
)

var updateRanking = flag.Bool("update", false, "rewrite the ranking goldens in testdata/ranking")

// rankingDepth is how many hits a ranking golden records.
const rankingDepth = 5

// TestRankingGoldens searches a small checked-in corpus (testdata/ranking/
// corpus: Go, Python and TypeScript) with the built-in hashed embedder and
// compares each query's ranked hits with its golden, zoekt style: a
// testdata/ranking/*.txt file starts with "query:" and "target:" (the file a
// reader would want first) and a blank line; the rest (the target's rank and
// the top hits) is what the search gives. -update rewrites the rest.
func TestRankingGoldens(t *testing.T) {
	root, err := workspace.Open(filepath.Join("testdata", "ranking", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ix := New(root)
	if err := ix.Build(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if want := countFiles(t, root.Dir()); ix.Stats().Files != want {
		t.Fatalf("indexed %d files of the corpus's %d", ix.Stats().Files, want)
	}
	goldens, err := filepath.Glob(filepath.Join("testdata", "ranking", "*.txt"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no goldens: %v", err)
	}
	for _, name := range goldens {
		t.Run(strings.TrimSuffix(filepath.Base(name), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			header, _, _ := bytes.Cut(data, []byte("\n\n"))
			query, target := goldenField(header, "query"), goldenField(header, "target")
			if query == "" || target == "" {
				t.Fatalf("%s must start with query: and target: lines", name)
			}
			hits, err := ix.Search(t.Context(), Query{Text: query, Max: rankingDepth})
			if err != nil {
				t.Fatal(err)
			}
			got := append(append(header, "\n\n"...), rankingBody(hits, target)...)
			testkit.Golden(t, name, got, *updateRanking)
		})
	}
}

// rankingBody is the computed part of a golden: the target's rank (0 when
// it is not among the hits) and one line per hit.
func rankingBody(hits []Hit, target string) []byte {
	var b bytes.Buffer
	rank := 0
	for i, h := range hits {
		if h.Path == target && rank == 0 {
			rank = i + 1
		}
	}
	fmt.Fprintf(&b, "targetRank: %d\n", rank)
	for i, h := range hits {
		fmt.Fprintf(&b, "%d %s:%d-%d\n", i+1, h.Path, h.Start, h.End)
	}
	return b.Bytes()
}

// goldenField is the value of a "key: value" line of a golden's header.
func goldenField(header []byte, key string) string {
	for line := range strings.Lines(string(header)) {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
