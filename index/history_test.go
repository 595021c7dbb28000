package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCleanMessage(t *testing.T) {
	tests := []struct{ in, want string }{
		{"router: match wildcard routes first (#1234)", "router: match wildcard routes first ()"},
		{"Fix proxy timeout\n\nSigned-off-by: Ann Lee <ann@example.com>\nCo-authored-by: Bo <bo@example.org>", "Fix proxy timeout"},
		{"Retry dial\n\nFixes #12\nCloses owner/repo#7", "Retry dial"},
		{"See https://example.com/issue/3 for the cause", "See  for the cause"},
		{"Change-Id: I0123abcd\nReviewed-by: Someone", ""},
		// words that only look like boilerplate stay
		{"fix: signed-by header parsing\n\nthe closes channel", "fix: signed-by header parsing\n\nthe closes channel"},
	}
	for _, tc := range tests {
		if got := strings.TrimSpace(cleanMessage(tc.in)); got != tc.want {
			t.Errorf("cleanMessage(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRecordable(t *testing.T) {
	wide := make([]string, histWideCommit+1)
	for i := range wide {
		wide[i] = fmt.Sprintf("f%d.go", i)
	}
	tests := []struct {
		name string
		c    FileCommit
		want bool
	}{
		{"an ordinary commit", FileCommit{Message: "cache: evict by size", Paths: []string{"cache.go"}}, true},
		{"a merge (no files)", FileCommit{Message: "Merge branch 'dev'"}, false},
		{"a commit changing too many files", FileCommit{Message: "update the licence header", Paths: wide}, false},
		{"a widest commit still recorded", FileCommit{Message: "rename the module", Paths: wide[:histWideCommit]}, true},
		{"a message all boilerplate", FileCommit{Message: "#12\n\nSigned-off-by: A <a@b.c>", Paths: []string{"a.go"}}, false},
	}
	for _, tc := range tests {
		if _, got := recordable(tc.c); got != tc.want {
			t.Errorf("%s: recordable = %v, want %v", tc.name, got, tc.want)
		}
	}
	long, ok := recordable(FileCommit{Message: strings.Repeat("word ", 1000), Paths: []string{"a.go"}})
	if !ok || len(long.Message) > histMessage {
		t.Errorf("a long message is recorded cut to %d bytes: %d bytes", histMessage, len(long.Message))
	}
}

// TestHistoryReadPerCommit: a file changed by several commits like the
// query rises by the per-commit reading, where its own field, long with
// other work, ranks below a file whose one commit matched.
func TestHistoryReadPerCommit(t *testing.T) {
	r, _ := repo(t, map[string]string{
		"client.go": "package p\n\nfunc Send() {}\n",
		"conn.go":   "package p\n\nfunc Open() {}\n",
	})
	ix := built(t, r)
	// newest first
	commits := []FileCommit{{Message: "retry backoff on refused dials", Paths: []string{"client.go"}}}
	for i := range 3 {
		commits = append(commits,
			FileCommit{Message: fmt.Sprintf("reword the connection pool's log lines, part %d", i), Paths: []string{"conn.go"}},
			FileCommit{Message: fmt.Sprintf("retry backoff: cap the wait, part %d", i), Paths: []string{"conn.go"}})
	}
	ix.AddHistory(commits, "head")
	q := queryTerms("retry backoff")
	for _, tc := range []struct {
		name   string
		tune   histTune
		better string
	}{
		{"per file", histTune{mix: 1, halfLife: histHalfLife}, "client.go"},
		{"per commit", histTune{cmix: 1, halfLife: histHalfLife}, "conn.go"},
	} {
		ix.histTune, ix.histTerms = tc.tune, nil
		lift := ix.histLift(q)
		other := map[string]string{"client.go": "conn.go", "conn.go": "client.go"}[tc.better]
		if lift[tc.better] <= lift[other] {
			t.Errorf("%s: lifts %v, want %s above %s", tc.name, lift, tc.better, other)
		}
	}
}

// TestHistoryBounded: the oldest commits go beyond histMaxCommits, and a
// file's field takes its newest histCommits commits.
func TestHistoryBounded(t *testing.T) {
	r, _ := repo(t, map[string]string{"a.go": "package p\n"})
	ix := built(t, r)
	var commits []FileCommit // newest first: commit n-1 … 0
	n := histMaxCommits + 10
	for i := n - 1; i >= 0; i-- {
		commits = append(commits, FileCommit{Message: fmt.Sprintf("change number%d", i), Paths: []string{"a.go"}})
	}
	ix.AddHistory(commits[n/2:], "h1") // the older half first, as two opens would read them
	ix.AddHistory(commits[:n/2], "h2")
	if len(ix.commits) != histMaxCommits || ix.HistoryHead() != "h2" {
		t.Fatalf("%d commits kept up to %s, want %d up to h2", len(ix.commits), ix.HistoryHead(), histMaxCommits)
	}
	hi := ix.histIndexLocked()
	for term, want := range map[string]bool{"number0": false, "number9": false, "number10": true, fmt.Sprint("number", n-1): true} {
		if got := len(hi.commits.postings[term]) != 0; got != want {
			t.Errorf("commit %s indexed: %v, want %v", term, got, want)
		}
	}
	for term, want := range map[string]bool{fmt.Sprint("number", n-1): true, fmt.Sprint("number", n-histCommits): true, fmt.Sprint("number", n-histCommits-1): false} {
		if got := len(hi.files.postings[term]) != 0; got != want {
			t.Errorf("a.go's field holds %s: %v, want %v", term, got, want)
		}
	}
}

// TestHistorySavedAndReused: the recorded commits are saved with the
// index; an open with no new commit neither reads them again nor rewrites
// the index, and searches by them as before.
func TestHistorySavedAndReused(t *testing.T) {
	r, _ := repo(t, map[string]string{
		"server/conn.go": "package server\n\nfunc handle(c int) int { return c + 1 }\n",
		"server/log.go":  "package server\n\nfunc logf(s string) {}\n",
	})
	state := t.TempDir()
	var since []string
	src := func(_ context.Context, from string) ([]FileCommit, string, error) {
		since = append(since, from)
		if from == "h1" {
			return nil, "h1", nil
		}
		return []FileCommit{{Hash: "h1", Message: "fix websocket handshake timeout under proxies", Paths: []string{"server/conn.go"}}}, "h1", nil
	}
	open := func() *Index {
		t.Helper()
		ix := New(r)
		ix.racy = 0
		ix.SetHistorySource(src)
		if err := Open(context.Background(), ix, state, nil, func(s string) { t.Error(s) }); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	open()
	before, err := os.Stat(filepath.Join(state, indexFile))
	if err != nil {
		t.Fatal(err)
	}
	ix := open()
	if after, _ := os.Stat(filepath.Join(state, indexFile)); !after.ModTime().Equal(before.ModTime()) || !os.SameFile(before, after) {
		t.Error("an open with no new commit rewrote the index")
	}
	if strings.Join(since, ",") != ",h1" {
		t.Errorf("history read since %q, want from the start then since h1", since)
	}
	if hits := search(t, ix, "websocket handshake"); len(hits) == 0 || hits[0].Path != "server/conn.go" || hits[0].Nearest {
		t.Errorf("a reopened index does not search by its history: %+v", hits)
	}
}

// TestHistoryLiftsOneChunkAFile: the history lifts a file's best chunk
// only (its other chunks would crowd other files out of a short list), and
// brings in a file the query's words did not reach by its first chunk.
func TestHistoryLiftsOneChunkAFile(t *testing.T) {
	var big strings.Builder
	big.WriteString("package p\n")
	for i := range 4 {
		fmt.Fprintf(&big, "\n// Refresh%d renews the session token.\nfunc Refresh%d() {\n%s}\n", i, i, strings.Repeat("\t_ = 1\n", 70))
	}
	r, _ := repo(t, map[string]string{
		"big.go":   big.String(),
		"quiet.go": "package p\n\nfunc Idle() {}\n",
	})
	ix := built(t, r)
	if n := len(ix.files["big.go"].Chunks); n < 3 {
		t.Fatalf("big.go has %d chunks, want several", n)
	}
	ix.AddHistory([]FileCommit{
		{Message: "renew the session token before it expires", Paths: []string{"big.go"}},
		{Message: "session token storage moves to the keyring", Paths: []string{"quiet.go"}},
	}, "h")
	q := queryTerms("session token")
	before := &scorer{scores: make([]float32, len(ix.chunks))}
	for term, w := range q {
		ix.scoreTerm(before, term, w)
	}
	after := &scorer{scores: slices.Clone(before.scores), touched: slices.Clone(before.touched)}
	ix.addHistory(after, q)
	lifted := map[string]int{}
	for id := range after.scores {
		if after.scores[id] > before.scores[id] {
			lifted[ix.byID[ix.chunks[id].File].Path]++
		}
	}
	if lifted["big.go"] != 1 || lifted["quiet.go"] != 1 {
		t.Errorf("chunks lifted per file: %v, want one of big.go and one of quiet.go", lifted)
	}
	if id := ix.files["quiet.go"].Chunks[0]; !slices.Contains(after.touched, id) {
		t.Error("quiet.go, found by its history only, is not among the candidates")
	}
}
