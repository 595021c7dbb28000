package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/workspace/sandbox"
)

// TestCommandPolicyLimitsFromEnv checks that the user's limits reach the
// command policy and that a wrong value is refused with what to write.
func TestCommandPolicyLimitsFromEnv(t *testing.T) {
	t.Setenv(sandbox.LimitsEnv, "procs=300,cpu=90s")
	p, err := CommandPolicyFromEnv()
	if err != nil || p.Limits != (sandbox.Limits{Procs: 300, CPU: 90 * time.Second}) {
		t.Errorf("CommandPolicyFromEnv: %+v, %v", p.Limits, err)
	}
	t.Setenv(sandbox.LimitsEnv, "procs=lots")
	if _, err := CommandPolicyFromEnv(); err == nil || !strings.Contains(err.Error(), sandbox.LimitsEnv) {
		t.Errorf("a bad value was accepted: %v", err)
	}
}
