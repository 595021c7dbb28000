package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestSearchStaysFresh: Search Codebase builds the index (with progress),
// then a saved file and an unsaved buffer reach it from editor
// notifications, without a reindex.
func TestSearchStaysFresh(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "login.go"), []byte("package auth\n\n// Login checks a password.\nfunc Login() {}\n"), 0o644)
	h := newHarness(t, wired)
	h.initFolder(dir, "w", map[string]any{"window": map[string]any{"workDoneProgress": true}}, nil)
	h.initialized()
	search := func(q string) []string {
		t.Helper()
		var hits []editor.SearchHit
		if err := h.call("workspace/executeCommand", map[string]any{"command": editor.CommandSearch, "arguments": []any{editor.SearchParams{Query: q}}}, &hits); err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		var files []string
		for _, hit := range hits {
			files = append(files, hit.FilePath)
		}
		return files
	}
	eventually := func(q, file string) {
		t.Helper()
		if err := testkit.Poll(10*time.Second, 50*time.Millisecond, func() error {
			if got := search(q); !slices.Contains(got, file) {
				return fmt.Errorf("search %q found %v, not %s", q, got, file)
			}
			return nil
		}); err != nil {
			t.Error(err)
		}
	}
	if got := search("login password"); !slices.Contains(got, "login.go") {
		t.Fatalf("first search = %v", got)
	}
	h.waitNote("$/progress")

	// Saved: the file on disk changed, didSave says so.
	fileURI := pathURI(filepath.Join(dir, "login.go"))
	os.WriteFile(filepath.Join(dir, "login.go"), []byte("package auth\n\n// Login verifies a hardware token.\nfunc Login() {}\n"), 0o644)
	h.client.Notify(context.Background(), "textDocument/didSave", map[string]any{"textDocument": map[string]string{"uri": fileURI}})
	eventually("hardware token", "login.go")

	// Created outside the editor: didChangeWatchedFiles.
	os.WriteFile(filepath.Join(dir, "invoice.go"), []byte("package billing\n\n// Invoice totals an order.\nfunc Invoice() {}\n"), 0o644)
	h.client.Notify(context.Background(), "workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": pathURI(filepath.Join(dir, "invoice.go")), "type": 1}}})
	eventually("invoice totals order", "invoice.go")

	// Unsaved buffer: didOpen + didChange, nothing on disk.
	h.client.Notify(context.Background(), "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": fileURI, "version": 1, "languageId": "go", "text": "package auth\n"}})
	h.client.Notify(context.Background(), "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": fileURI, "version": 2},
		"contentChanges": []map[string]string{{"text": "package auth\n\n// Login rotates refresh credentials.\nfunc Login() {}\n"}}})
	eventually("rotates refresh credentials", "login.go")
}
