package codesearch

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/autarch-dev/autarch/index"
	"github.com/autarch-dev/autarch/workspace"
)

// TestSearchReadsHistory: a file's past commit messages find it where its
// text does not, from a real repository through hardened git; a commit
// made later is read at the next open, incrementally; a folder without
// git has no history and searches as before.
func TestSearchReadsHistory(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(rel, content string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755)
		os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644)
	}
	git("init", "-q", "-b", "main")
	write("server/conn.go", "package server\n\nfunc handle(c int) int { return c + 1 }\n")
	write("server/log.go", "package server\n\nfunc logf(s string) {}\n")
	git("add", ".")
	git("commit", "-qm", "initial")
	write("server/conn.go", "package server\n\nfunc handle(c int) int { return c + 2 }\n")
	git("commit", "-qam", "fix websocket handshake timeout under proxies")
	state := t.TempDir()
	open := func() *index.Index {
		t.Helper()
		r, err := workspace.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		ix := index.New(r)
		ix.SetHistorySource(GitHistory(context.Background(), dir))
		if err := index.Open(context.Background(), ix, state, nil, func(s string) { t.Error(s) }); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	top := func(ix *index.Index, q string) string {
		hits, err := ix.Search(context.Background(), index.Query{Text: q, Max: 3})
		if err != nil || len(hits) == 0 || hits[0].Nearest {
			return "" // nothing matched: the nearest chunks are no finding
		}
		return hits[0].Path
	}
	ix := open()
	if got := top(ix, "websocket handshake"); got != "server/conn.go" {
		t.Errorf("history query found %q", got)
	}
	head := ix.HistoryHead()
	write("server/log.go", "package server\n\nfunc logf(s string) { _ = s }\n")
	git("commit", "-qam", "rotate audit journal nightly")
	ix = open()
	if got := top(ix, "rotate audit journal"); got != "server/log.go" {
		t.Errorf("a later commit: %q", got)
	}
	if ix.HistoryHead() == head || ix.HistoryHead() == "" {
		t.Errorf("history head %q (was %q)", ix.HistoryHead(), head)
	}
	if GitHistory(context.Background(), t.TempDir()) != nil {
		t.Error("a folder outside git has a history source")
	}
}
