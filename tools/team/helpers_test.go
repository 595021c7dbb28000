package team

import (
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools"
)

// refusedSaying fails t unless res is a refusal whose output holds want.
func refusedSaying(t *testing.T, res tools.Result, want string) {
	t.Helper()
	if !res.Failed || !strings.Contains(res.Output, want) {
		t.Errorf("result = %s, want a refusal saying %q", res.Output, want)
	}
}
