package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/index"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace"
)

// TestWatcherKeepsTheIndexFresh edits, creates, ignores and deletes files
// under a watched workspace and checks what search sees after each batch.
func TestWatcherKeepsTheIndexFresh(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitignore", "build/\n")
	write("auth/login.go", "package auth\n\n// Login checks a password.\nfunc Login() {}\n")
	r, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ix := index.New(r)
	if err := ix.Build(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	batches := make(chan []string, 10)
	w := &watcher{root: r, ignore: workspace.NewIgnore(r), ix: ix, dir: t.TempDir(), debounce: 50 * time.Millisecond,
		applied: func(rels []string, _ time.Duration) { batches <- rels }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.run(ctx) }()
	// The watches are in place once a probe's change reaches the index.
	probe := 0
	testkit.CheckFor(t, 10*time.Second, 50*time.Millisecond, func() error {
		probe++
		write("probe.go", fmt.Sprintf("package probe\n\n// Probe %d.\n", probe))
		select {
		case rels := <-batches:
			if slices.Contains(rels, "probe.go") {
				return nil
			}
		default:
		}
		return errors.New("the watcher sees no change yet")
	})

	files := func(query string) []string {
		hits, err := ix.Search(t.Context(), index.Query{Text: query, Max: 10})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			out = append(out, h.Path)
		}
		return out
	}
	wait := func(want string) []string {
		t.Helper()
		for {
			select {
			case rels := <-batches:
				if slices.Contains(rels, want) {
					return rels
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no index update for %s", want)
			}
		}
	}

	write("auth/login.go", "package auth\n\n// Login verifies a hardware token.\nfunc Login() {}\n")
	wait("auth/login.go")
	if got := files("hardware token"); !slices.Contains(got, "auth/login.go") {
		t.Errorf("after an edit, search finds %v", got)
	}
	write("billing/invoice.go", "package billing\n\n// Invoice totals an order.\nfunc Invoice() {}\n")
	wait("billing/invoice.go")
	if got := files("invoice totals order"); !slices.Contains(got, "billing/invoice.go") {
		t.Errorf("after a new directory, search finds %v", got)
	}
	write("build/gen.go", "package build\n\n// Invoice generated copy.\nfunc Gen() {}\n")
	os.Remove(filepath.Join(dir, "billing", "invoice.go"))
	rels := wait("billing/invoice.go")
	if slices.ContainsFunc(rels, func(r string) bool { return strings.HasPrefix(r, "build/") }) {
		t.Errorf("an ignored file reached the index: %v", rels)
	}
	if got := files("invoice totals order"); slices.Contains(got, "billing/invoice.go") || slices.Contains(got, "build/gen.go") {
		t.Errorf("after a delete, search finds %v", got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
