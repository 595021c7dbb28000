package embedtrain

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGoPairs(t *testing.T) {
	src := "package p\n\n// Parse reads a config file and returns its sections.\n//go:noinline\nfunc Parse(path string) error {\n\t// skip the byte order mark first\n\tdata = trimBOM(data)\n\treturn nil\n}\n\n// x\nfunc Short() {}\n\nfunc NoDoc() {}\n"
	got := goPairs("cfg/parse.go", []byte(src))
	want := []Pair{
		{Query: "reads a config file and returns its sections.", Code: "cfg/parse.go\nfunc Parse(path string) error {\n\t// skip the byte order mark first\n\tdata = trimBOM(data)\n\treturn nil\n}", Kind: "doc"},
		{Query: "skip the byte order mark first", Code: "cfg/parse.go\n\tdata = trimBOM(data)\n\treturn nil\n}", Kind: "comment"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestPythonPairs(t *testing.T) {
	src := "def read_config(path,\n                encoding='utf-8'):\n    \"\"\"Read the settings file.\n\n    More detail.\n    \"\"\"\n    # open it and parse each line\n    with open(path) as f:\n        return parse(f)\n\n\ndef broken():\n    '''never closed\n"
	got := pythonPairs("lib/conf.py", []byte(src))
	if len(got) != 3 {
		t.Fatalf("got %d pairs: %q", len(got), got)
	}
	doc, name, comment := got[0], got[1], got[2]
	if doc.Kind != "doc" || doc.Query != "Read the settings file." || strings.Contains(doc.Code, "settings") || !strings.Contains(doc.Code, "def read_config") {
		t.Errorf("docstring pair %q", doc)
	}
	if name.Kind != "name" || name.Query != "read config" || strings.Contains(name.Code, "def ") || !strings.Contains(name.Code, "parse(f)") {
		t.Errorf("name pair %q", name)
	}
	if comment.Kind != "comment" || comment.Query != "open it and parse each line" || !strings.HasSuffix(comment.Code, "return parse(f)") {
		t.Errorf("comment pair %q", comment)
	}
}

func TestExtractSkipsTestdataAndDuplicates(t *testing.T) {
	dir := t.TempDir()
	body := "package p\n\n// Open returns the named file for reading.\nfunc Open(name string) {}\n"
	for _, p := range []string{"a/x.go", "b/x.go", "testdata/y.go", "vendor/z.go"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(strings.ReplaceAll(body, "p\n", filepath.Dir(p)+"\n")), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "a/y.go"), []byte(strings.ReplaceAll(body, "Open", "Close")), 0o644)
	seen := map[uint64]bool{}
	ps, err := Extract(context.Background(), Source{Name: "t", Dir: dir, Lang: "go"}, seen)
	if err != nil || len(ps) != 3 {
		t.Fatalf("got %d pairs (%v): %q", len(ps), err, ps)
	}
	again, _ := Extract(context.Background(), Source{Name: "t", Dir: dir, Lang: "go"}, seen)
	if len(again) != 0 {
		t.Errorf("duplicates extracted again: %q", again)
	}
}

// synthetic makes n pairs over a small vocabulary: topic words in the
// query, their code words in the code.
func synthetic(n int) []Pair {
	topics := [][2]string{{"read file", "os open read close"}, {"parse json", "json unmarshal decode"}, {"sort list", "sort slice less swap"},
		{"http request", "http client get response"}, {"hash password", "bcrypt sha256 salt"}, {"compress data", "gzip writer flush"}}
	var out []Pair
	for i := range n {
		a, b := topics[i%len(topics)], topics[(i/len(topics))%len(topics)]
		out = append(out, Pair{Query: a[0] + " then " + b[0], Code: fmt.Sprintf("func f%d() { %s; %s }", i, a[1], b[1]), Kind: "doc"})
	}
	return out
}

func TestTrainDeterministicAndLearns(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Dim, cfg.Batch, cfg.Epochs, cfg.Heldout, cfg.MinDF, cfg.Adjusted, cfg.EvalEvery = 16, 32, 3, 36, 1, 4, 1000
	var logs []string
	cfg.Log = func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }
	pairs := synthetic(400)
	w1, err := Train(context.Background(), pairs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The held-out MRR after training beats the PPMI-SVD start.
	var before, after float64
	for _, l := range logs {
		if i := strings.Index(l, "held-out MRR "); i >= 0 {
			var x float64
			fmt.Sscan(l[i+len("held-out MRR "):], &x)
			if before == 0 {
				before = x
			}
			after = x
		}
	}
	if after <= before || after < 0.3 {
		t.Errorf("held-out MRR %.3f → %.3f: not learning (%q)", before, after, logs)
	}
	w2, _ := Train(context.Background(), pairs, cfg)
	b1, _ := w1.MarshalBinary()
	b2, _ := w2.MarshalBinary()
	if !bytes.Equal(b1, b2) {
		t.Error("two runs with one seed differ")
	}
	if !strings.HasPrefix(w1.Version, "code-v1-") || w1.Dim != 16 || w1.Adjusted != 4 {
		t.Errorf("weights %q dim %d adjusted %d", w1.Version, w1.Dim, w1.Adjusted)
	}
	if _, err := Train(context.Background(), pairs[:10], cfg); err == nil || !strings.Contains(err.Error(), "fewer than a batch") {
		t.Errorf("10 pairs: err = %v", err)
	}
}

func TestMineNegatives(t *testing.T) {
	enc := func(ids ...int32) []termW {
		out := make([]termW, len(ids))
		for i, id := range ids {
			out[i] = termW{id, 1}
		}
		return out
	}
	ex := []example{
		{q: enc(1, 2, 3), c: enc(10, 11, 12, 13)},           // 0
		{q: enc(1, 2, 3), c: enc(2, 10, 11, 12, 14)},        // 1: matches by term 2 but is a near duplicate of 0 (same query)
		{q: enc(1, 4, 5), c: enc(1, 2, 20, 21, 22, 23, 24)}, // 2: matches 0's query by term 2
		{q: enc(6, 7), c: enc(30, 31)},                      // 3: nothing shares a rare term
		{q: enc(8, 9), c: enc(2, 40, 41, 42, 43)},           // 4
	}
	for seed := range uint64(20) { // each seed draws among the best matches
		if n := mineNegatives(ex, seed, 2)[0]; n != 2 && n != 4 {
			t.Fatalf("seed %d: pair 0's negative = %d: want 2 or 4 (1 is a near duplicate)", seed, n)
		}
	}
	neg := mineNegatives(ex, 1, 2)
	if neg[3] != -1 {
		t.Errorf("pair 3's negative = %d: want none", neg[3])
	}
	for i, j := range neg {
		if int(j) == i {
			t.Errorf("pair %d is its own negative", i)
		}
	}
	if again := mineNegatives(ex, 1, 1); fmt.Sprint(again) != fmt.Sprint(neg) {
		t.Errorf("mining depends on the workers: %v vs %v", again, neg)
	}
}

func TestTrainWithHardNegatives(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Dim, cfg.Batch, cfg.Epochs, cfg.Heldout, cfg.MinDF, cfg.Adjusted, cfg.EvalEvery = 16, 32, 3, 36, 1, 4, 1000
	cfg.HardNegatives = true
	pairs := synthetic(400)
	w1, err := Train(context.Background(), pairs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.HardNegatives = false
	w2, _ := Train(context.Background(), pairs, cfg)
	b1, _ := w1.MarshalBinary()
	b2, _ := w2.MarshalBinary()
	if bytes.Equal(b1, b2) {
		t.Error("hard negatives changed nothing")
	}
}
