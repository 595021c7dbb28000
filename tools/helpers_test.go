package tools

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/workspace/trust"
)

// loadProject loads the project at dir with a trust store of its own, in
// which the repository's executable configuration is trusted as it is now
// when trusted is set.
func loadProject(t testing.TB, dir string, trusted bool) (Project, error) {
	t.Helper()
	store := trust.At(filepath.Join(t.TempDir(), "trust.json"))
	if trusted {
		cfg, err := trust.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Trust(cfg); err != nil {
			t.Fatal(err)
		}
	}
	return LoadProject(dir, store)
}

// callCase is a row of a table of tool calls: the call, and what its
// result must be.
type callCase struct {
	name   string
	tool   string
	args   map[string]any
	want   string // the output holds it
	failed bool
}

// check fails the test unless res is what the row wants.
func (c callCase) check(t *testing.T, res Result) {
	t.Helper()
	if res.Failed != c.failed || !strings.Contains(res.Output, c.want) {
		t.Fatalf("%s: failed=%v %s; want failed=%v containing %q", c.tool, res.Failed, res.Output, c.failed, c.want)
	}
}
