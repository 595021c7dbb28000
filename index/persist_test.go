package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenCostsWhatChanged: opening a saved index whose files did not
// change reads no file and writes nothing; a changed, an added and a
// removed file are each handled alone, and the save that follows drops
// the replaced chunks (the file holds the live chunks only).
func TestOpenCostsWhatChanged(t *testing.T) {
	files := map[string]string{
		"auth/token.go": "package auth\n\n// RefreshToken renews an expired access token.\nfunc RefreshToken(old string) string { return old }\n",
		"cache/lru.go":  "package cache\n\n// Evict drops the least recently used entry.\nfunc Evict() {}\n",
		"docs/guide.md": "# Guide\n\nHow to rotate credentials safely.\n",
		"img/logo.png":  "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"conf/keys.txt": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
	}
	r, dir := repo(t, files)
	state := t.TempDir()
	open := func() *Index {
		t.Helper()
		ix := New(r)
		ix.racy = 0 // the files were all written before the first build started
		if err := Open(context.Background(), ix, state, nil, func(s string) { t.Log(s) }); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	first := open()
	if n := first.reads.Load(); n != 5 {
		t.Fatalf("first build read %d files, want 5", n)
	}
	saved := filepath.Join(state, indexFile)
	before, err := os.Stat(saved)
	if err != nil {
		t.Fatal(err)
	}

	again := open()
	if n := again.reads.Load(); n != 0 {
		t.Errorf("an open with nothing changed read %d files", n)
	}
	if after, _ := os.Stat(saved); !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Error("an open with nothing changed rewrote the index")
	}
	if hits := search(t, again, "rotate credentials"); len(hits) == 0 || hits[0].Path != "docs/guide.md" {
		t.Errorf("loaded index: %+v", hits)
	}

	os.WriteFile(filepath.Join(dir, "cache", "lru.go"), []byte("package cache\n\n// Prune forgets stale sessions.\nfunc Prune() {}\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "net"), 0o755)
	os.WriteFile(filepath.Join(dir, "net", "dial.go"), []byte("package net\n\n// DialTimeout connects with a deadline.\nfunc DialTimeout() {}\n"), 0o644)
	os.Remove(filepath.Join(dir, "docs", "guide.md"))
	// an indexed file that now holds a secret leaves the index
	os.WriteFile(filepath.Join(dir, "auth", "token.go"), []byte("package auth\n\n// RefreshToken renews it.\nconst key = \"AKIAIOSFODNN7EXAMPLQ\"\nvar secret = \"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"\n"), 0o644)
	changed := open()
	if n := changed.reads.Load(); n != 3 {
		t.Errorf("an open after two changes and one addition read %d files, want 3", n)
	}
	if hits := search(t, changed, "RefreshToken renews"); len(hits) > 0 && hits[0].Path == "auth/token.go" {
		t.Errorf("a file that now holds a secret is still indexed: %+v", hits)
	}
	for q, want := range map[string]string{"stale sessions": "cache/lru.go", "deadline connects": "net/dial.go"} {
		if hits := search(t, changed, q); len(hits) == 0 || hits[0].Path != want {
			t.Errorf("%q: %+v", q, hits)
		}
	}
	for _, q := range []string{"least recently used", "rotate credentials"} {
		for _, h := range search(t, changed, q) {
			if !h.Nearest && (h.Path == "docs/guide.md" || h.Path == "cache/lru.go" && q == "least recently used") {
				t.Errorf("%q still finds the old %s", q, h.Path)
			}
		}
	}
	m, err := mapIndex(saved)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.chunks {
		if m.chunks[i].Dead {
			t.Errorf("saved chunk %d is dead", i)
		}
	}
	if changed.Stats().Chunks != len(m.chunks) {
		t.Errorf("saved %d chunks, %d live", len(m.chunks), changed.Stats().Chunks)
	}
	reloaded := open()
	if n := reloaded.reads.Load(); n != 0 {
		t.Errorf("reopening after the save read %d files", n)
	}
	if hits := search(t, reloaded, "stale sessions"); len(hits) == 0 || hits[0].Path != "cache/lru.go" {
		t.Errorf("after compaction: %+v", hits)
	}
}

// TestLegacyIndexRebuilt: a whole-gob index of the previous format is
// rebuilt with a note and removed.
func TestLegacyIndexRebuilt(t *testing.T) {
	r, _ := repo(t, map[string]string{"a.go": "package a\n\n// Sum adds numbers.\nfunc Sum() {}\n"})
	state := t.TempDir()
	os.WriteFile(filepath.Join(state, legacyFile), []byte("old"), 0o644)
	var notes []string
	ix := New(r)
	if err := Open(context.Background(), ix, state, nil, func(s string) { notes = append(notes, s) }); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || notes[0] != "no usable saved index: saved in an older format; rebuilding" {
		t.Errorf("notes: %q", notes)
	}
	if _, err := os.Stat(filepath.Join(state, legacyFile)); err == nil {
		t.Error("the old index is still there")
	}
}

// FuzzPostings: encoded postings decode to themselves; any bytes decode
// without panicking to at most the count asked for.
func FuzzPostings(f *testing.F) {
	f.Add([]byte{1, 0x9, 2, 1}, 3)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0x0f, 0xf, 1, 2, 3, 4}, 2)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		n = min(max(n, 0), 1<<12)
		ps := decodePostings(b, n)
		if len(ps) > n {
			t.Fatalf("decoded %d of %d", len(ps), n)
		}
		for i := 1; i < len(ps); i++ {
			if ps[i].Chunk < ps[i-1].Chunk {
				return // not from encodePostings
			}
		}
		if again := decodePostings(encodePostings(nil, ps), len(ps)); len(again) != len(ps) {
			t.Fatalf("round trip: %v -> %v", ps, again)
		} else {
			for i := range ps {
				if again[i] != ps[i] {
					t.Fatalf("round trip %d: %v -> %v", i, ps[i], again[i])
				}
			}
		}
	})
}

// TestNearestAlwaysReturned (issue 31 point 11): a query that shares no
// word with the code still gets the nearest chunks, weakest last.
func TestNearestAlwaysReturned(t *testing.T) {
	r, _ := repo(t, map[string]string{
		"calc.go": "package calc\n\n// Add returns a plus b.\nfunc Add(a, b int) int { return a + b }\n\n// Sub returns a minus b.\nfunc Sub(a, b int) int { return a - b }\n",
	})
	ix := built(t, r)
	for _, q := range []string{"subtract two numbers", "difference of integers", "minus"} {
		if hits := search(t, ix, q); len(hits) == 0 || hits[0].Path != "calc.go" {
			t.Errorf("%q: %+v", q, hits)
		}
	}
}

// TestVecStore: vectors appended past a slab and after a mapped base read
// back as written.
func TestVecStore(t *testing.T) {
	const dim = 3
	base := []int8{1, 2, 3, 4, 5, 6}
	v := newVecStore(dim, 2, base)
	for i := range vecSlab + 5 {
		v.append([]int8{int8(i), int8(i >> 8), 7})
	}
	v.append(nil)
	if v.len() != 2+vecSlab+6 {
		t.Fatalf("len %d", v.len())
	}
	if got := v.at(1); got[0] != 4 || got[2] != 6 {
		t.Errorf("base: %v", got)
	}
	for _, i := range []int{0, vecSlab - 1, vecSlab, vecSlab + 4} {
		if got := v.at(uint32(2 + i)); got[0] != int8(i) || got[1] != int8(i>>8) || got[2] != 7 {
			t.Errorf("%d: %v", i, got)
		}
	}
	if got := v.at(uint32(v.len() - 1)); len(got) != dim || got[0] != 0 {
		t.Errorf("zeros: %v", got)
	}
	if v.at(uint32(v.len())) != nil {
		t.Error("past the end")
	}
	fresh := newVecStore(dim, 2, nil)
	if got := fresh.at(1); len(got) != dim {
		t.Errorf("fresh: %v", got)
	}
}

// TestSpilledBuildSearchesAlike: a build that moves its postings to mapped
// bases as it goes ranks exactly as one held in memory, before and after a
// save and load.
func TestSpilledBuildSearchesAlike(t *testing.T) {
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("pkg%d/f%d.go", i%7, i)] = fmt.Sprintf("package pkg%d\n\n// Handle%d parses request %d headers and retries with backoff.\nfunc Handle%d(token string) error { return nil }\n", i%7, i, i, i)
	}
	r, _ := repo(t, files)
	mem := New(r)
	if err := mem.Build(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	spilled := New(r)
	spilled.spillAt = 64
	if err := Open(context.Background(), spilled, state, nil, nil); err != nil {
		t.Fatal(err)
	}
	if spilled.lex.base == nil {
		t.Fatal("the build never spilled")
	}
	loaded := New(r)
	if err := loaded.Load(state); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"parses request headers", "Handle17", "retries backoff token", "pkg3"} {
		want := search(t, mem, q)
		for name, ix := range map[string]*Index{"spilled": spilled, "loaded": loaded} {
			got := search(t, ix, q)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s %q:\n got %v\nwant %v", name, q, got, want)
			}
		}
	}
	if entries, _ := os.ReadDir(state); len(entries) != 1 {
		t.Errorf("left in the state dir: %v", entries)
	}
}
