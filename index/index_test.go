package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace"
)

func TestTokens(t *testing.T) {
	tests := map[string]string{
		"parseHTTPHeader":       "pars http header parsehttpheader",
		"snake_case_name":       "snak cas nam snake_case_name",
		"utf8Decode2 x":         "utf decod utf8decode2",
		"the quick Brown fox":   "quick brown fox",
		"ReadFile(path string)": "read fil readfil path string",
		"parses parsed parsing": "pars pars pars",
		"running files queries": "run fil query",
	}
	for in, want := range tests {
		var got []string
		Tokens(in, func(t string) { got = append(got, t) })
		if strings.Join(got, " ") != want {
			t.Errorf("Tokens(%q) = %q, want %q", in, strings.Join(got, " "), want)
		}
	}
}

func TestChunkGoLineRangesExact(t *testing.T) {
	src := "package p\n\nimport \"fmt\"\n\n// A is a.\ntype A struct {\n\tX int\n}\n\n// Hello greets.\nfunc (a *A) Hello() {\n\tfmt.Println(\"hi\")\n\tfmt.Println(\"hi\")\n\tfmt.Println(\"hi\")\n\tfmt.Println(\"hi\")\n\tfmt.Println(\"hi\")\n}\n\nfunc Big() {\n" + strings.Repeat("\t_ = 1\n", 300) + "}\n"
	cs := ChunkFile("p.go", []byte(src))
	lines := strings.Count(src, "\n")
	next := 1
	for _, c := range cs {
		if c.Start != next || c.End < c.Start || c.End-c.Start+1 > maxChunkLines {
			t.Fatalf("chunks not contiguous and bounded: %+v", cs)
		}
		next = c.End + 1
	}
	if next != lines+1 {
		t.Errorf("chunks end at %d, file has %d lines", next-1, lines)
	}
	var syms []string
	for _, c := range cs {
		syms = append(syms, c.Symbols)
	}
	if all := strings.Join(syms, "|"); !strings.Contains(all, "A Hello") || !strings.Contains(all, "Big") {
		t.Errorf("symbols = %q", all)
	}
	md := ChunkFile("README.md", []byte("# Title\nintro\n## Install\nsteps\n"))
	if len(md) != 1 && len(md) != 2 {
		t.Errorf("markdown chunks = %+v", md)
	}
}

func repo(t *testing.T, files map[string]string) (*workspace.Root, string) {
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, files)
	testkit.Git(t, dir, "init", "-q")
	r, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, dir
}

// built is a new index of r, built.
func built(t *testing.T, r *workspace.Root) *Index {
	t.Helper()
	ix := New(r)
	if err := ix.Build(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return ix
}

// reloaded saves ix to a new state folder and loads that into a new index
// of r.
func reloaded(t *testing.T, ix *Index, r *workspace.Root) (loaded *Index, state string) {
	t.Helper()
	state = t.TempDir()
	if err := ix.Save(state); err != nil {
		t.Fatal(err)
	}
	loaded = New(r)
	if err := loaded.Load(state); err != nil {
		t.Fatal(err)
	}
	return loaded, state
}

func search(t *testing.T, ix *Index, q string, w ...Weight) []Hit {
	t.Helper()
	hits, err := ix.Search(t.Context(), Query{Text: q, Max: 10, Weights: w})
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func TestBuildUpdateRemovePersist(t *testing.T) {
	r, dir := repo(t, map[string]string{
		"auth/token.go":      "package auth\n\n// RefreshToken renews an expired access token.\nfunc RefreshToken(old string) string { return old }\n",
		"auth/token_test.go": "package auth\n\nfunc TestRefreshToken() {}\n",
		"docs/guide.md":      "# Guide\nHow to refresh a token.\n",
		".env":               "TOKEN=abcdefghijklmnopqrstuvwxyz012345\n",
		"keys.go":            "package k\n\nconst key = \"AKIAIOSFODNN7EXAMPLE\"\n",
		"build/gen.go":       "package build\n\nfunc RefreshToken() {}\n",
		".gitignore":         "build/\n",
		"logo.png":           "\x89PNG\x00\x00binary",
	})
	ix := built(t, r)
	hits := search(t, ix, "refresh expired token")
	if len(hits) == 0 || hits[0].Path != "auth/token.go" || hits[0].Score != 1 {
		t.Fatalf("hits = %+v", hits)
	}
	for _, h := range hits {
		if h.Path == ".env" || h.Path == "keys.go" || strings.HasPrefix(h.Path, "build/") || h.Path == "logo.png" {
			t.Errorf("%s must not be indexed", h.Path)
		}
	}
	if st := ix.Stats(); st.Files != 4 { // token.go, token_test.go, guide.md, .gitignore
		t.Errorf("files = %d", st.Files)
	}
	// Weights: 0 excludes, boosts reorder.
	hits = search(t, ix, "refresh token", Weight{Glob: "**/*.go", Weight: 0})
	for _, h := range hits {
		if strings.HasSuffix(h.Path, ".go") {
			t.Errorf("weight 0 did not exclude %s", h.Path)
		}
	}
	hits = search(t, ix, "refresh token", Weight{Glob: "**/*_test.go", Weight: 10})
	if hits[0].Path != "auth/token_test.go" || hits[0].AdjustedScore <= hits[0].Score {
		t.Errorf("boosted hits = %+v", hits)
	}
	// Incremental: a change is visible after Update; a deletion too.
	os.WriteFile(filepath.Join(dir, "auth/token.go"), []byte("package auth\n\n// RotateCredentials swaps keys.\nfunc RotateCredentials() {}\n"), 0o644)
	if err := ix.Update(context.Background(), "auth/token.go"); err != nil {
		t.Fatal(err)
	}
	if hits := search(t, ix, "rotate credentials"); len(hits) == 0 || hits[0].Path != "auth/token.go" {
		t.Errorf("after update: %+v", hits)
	}
	for _, h := range search(t, ix, "expired") {
		if h.Path == "auth/token.go" && !h.Nearest {
			t.Errorf("stale content still found: %+v", h)
		}
	}
	os.Remove(filepath.Join(dir, "docs/guide.md"))
	ix.Update(context.Background(), "docs/guide.md")
	for _, h := range search(t, ix, "guide refresh") {
		if h.Path == "docs/guide.md" {
			t.Error("deleted file still found")
		}
	}
	// Persistence: save, load into a fresh index, same results.
	ix2, state := reloaded(t, ix, r)
	if a, b := search(t, ix, "rotate credentials"), search(t, ix2, "rotate credentials"); len(a) != len(b) || a[0] != b[0] {
		t.Errorf("loaded index differs: %+v vs %+v", a, b)
	}
	// A corrupt index is rebuilt with a message, never a crash.
	os.WriteFile(filepath.Join(state, indexFile), []byte("garbage"), 0o644)
	var notes []string
	ix3 := New(r)
	if err := Open(context.Background(), ix3, state, nil, func(s string) { notes = append(notes, s) }); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "corrupt") {
		t.Errorf("notes = %q", notes)
	}
	if hits := search(t, ix3, "rotate credentials"); len(hits) == 0 {
		t.Error("rebuilt index finds nothing")
	}
	if _, err := ix.Search(t.Context(), Query{Text: "  "}); err == nil {
		t.Error("empty query accepted")
	}
}

func TestLocationOutsideNonProjects(t *testing.T) {
	_, dir := repo(t, map[string]string{"a.go": "package a\n"})
	sd, err := Location(dir)
	if err != nil || !strings.HasPrefix(sd, filepath.Join(dir, ".git")) {
		t.Errorf("git repo state dir = %s, %v", sd, err)
	}
	plain := t.TempDir()
	sd, err = Location(plain)
	if err != nil || strings.HasPrefix(sd, plain) {
		t.Errorf("non-repo state dir %s is inside %s", sd, plain)
	}
}
