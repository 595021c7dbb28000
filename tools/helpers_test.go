package tools

import (
	"testing"

	"github.com/autarch-dev/autarch/workspace/trust"
)

// trustRepo trusts the executable configuration of the repository at dir
// as it is now, in store.
func trustRepo(t testing.TB, store *trust.Store, dir string) {
	t.Helper()
	cfg, err := trust.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Trust(cfg); err != nil {
		t.Fatal(err)
	}
}
