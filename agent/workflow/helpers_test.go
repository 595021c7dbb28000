package workflow

import (
	"context"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/workspace/git"
)

// OpenState opens the repository at dir and its workflow store (closed
// when the test ends), for this package's tests and its external ones.
func OpenState(t testing.TB, dir string) (*git.Repo, *store.Store) {
	t.Helper()
	ctx := context.Background()
	repo, err := git.Open(ctx, dir, git.Config{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, store.Path(repo.StateDir()), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return repo, st
}
