// Package storetest opens a repository's workflow state for tests: the
// repository (workspace/git) and its workflow store, as the engine and
// the job runner use them.
package storetest

import (
	"context"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/workspace/git"
)

// Open opens the repository at dir and its workflow store (in the
// repository's state directory, closed when the test ends); tb fails
// when either cannot be opened.
func Open(tb testing.TB, dir string) (*git.Repo, *store.Store) {
	tb.Helper()
	ctx := context.Background()
	repo, err := git.Open(ctx, dir, git.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	st, err := store.Open(ctx, store.Path(repo.StateDir()), store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return repo, st
}
