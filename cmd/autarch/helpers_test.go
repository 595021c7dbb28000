package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/agent/workflow/store"
)

// scriptedProject is scriptedRepo's repository with a scripted model
// serving the archive's steps from "from" up to "to" ("": all).
func scriptedProject(t *testing.T, path, from, to string) (dir, url string, model *scripted.Server) {
	t.Helper()
	dir, steps := scriptedRepo(t, path)
	url, model = scripted.Start(t, steps(from, to))
	return dir, url, model
}

// tempStore opens a store of the test's own, closed when the test ends.
func tempStore(t *testing.T, opts store.Options) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), store.FileName), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
