package testkit

import (
	"testing"

	"github.com/autarch-dev/autarch/agent/scripted"
)

// StartScript serves a scripted model whose steps are the txtar text (see
// agent/scripted) for the test's length, and returns its base URL.
func StartScript(t testing.TB, txtar string) (url string, model *scripted.Server) {
	t.Helper()
	script, err := scripted.Parse([]byte(txtar))
	if err != nil {
		t.Fatal(err)
	}
	return scripted.Start(t, script)
}
