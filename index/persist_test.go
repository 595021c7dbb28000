package index

import (
	"context"
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
	if n := first.reads.Load(); n != 3 {
		t.Fatalf("first build read %d files, want 3", n)
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
	changed := open()
	if n := changed.reads.Load(); n != 2 {
		t.Errorf("an open after one change and one addition read %d files, want 2", n)
	}
	for q, want := range map[string]string{"stale sessions": "cache/lru.go", "deadline connects": "net/dial.go"} {
		if hits := search(t, changed, q); len(hits) == 0 || hits[0].Path != want {
			t.Errorf("%q: %+v", q, hits)
		}
	}
	for _, q := range []string{"least recently used", "rotate credentials"} {
		for _, h := range search(t, changed, q) {
			if h.Path == "docs/guide.md" || h.Path == "cache/lru.go" && q == "least recently used" {
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
