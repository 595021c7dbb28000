package shellcmd

import (
	"strings"
	"testing"
)

// TestWrapperScriptReasons: a wrapper that hands a command line to a
// shell (env -S, watch) is refused, saying so, when a word of that line is
// only known at run time (TestClassify has the classes of such lines).
func TestWrapperScriptReasons(t *testing.T) {
	for cmd, reason := range map[string]string{
		`env -S ls -- "$X"`: "env -S runs a command only known at run time",
		"watch ls $X":       "watch runs a command only known at run time",
	} {
		if got := Analyze(cmd); got.Class != Dangerous || !strings.Contains(got.Reason, reason) {
			t.Errorf("Analyze(%q) = %v %q, want dangerous with %q", cmd, got.Class, got.Reason, reason)
		}
	}
}
