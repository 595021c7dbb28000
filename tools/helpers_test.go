package tools

import (
	"strings"
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
