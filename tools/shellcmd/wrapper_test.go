package shellcmd

import (
	"strings"
	"testing"
)

// TestWrapperScripts: a wrapper that hands a command line to a shell
// (env -S, watch) is judged by that line, and refused when a word of it is
// only known at run time; a redirection to a file descriptor writes no file.
func TestWrapperScripts(t *testing.T) {
	tests := []struct {
		cmd    string
		want   Class
		reason string
	}{
		{"env -S 'ls -la'", Safe, ""},
		{"env -S 'ls' -la", Safe, ""},
		{`env -S ls -- "$X"`, Dangerous, "env -S runs a command only known at run time"},
		{"watch ls", Safe, ""},
		{"watch -n 2 git status", Safe, ""},
		{"watch ls $X", Dangerous, "watch runs a command only known at run time"},
		{"watch 'rm x'", Dangerous, "rm"},
		{"ls 2>&1", Safe, ""},
		{"ls 2>&1-", Safe, ""},
		{"ls >&-", Safe, ""},
		{"ls 2>&x", Dangerous, ""},
		{"ls 2>&-x", Dangerous, ""},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			got := Analyze(tc.cmd)
			if got.Class != tc.want || !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("Analyze(%q) = %v %q, want %v with %q", tc.cmd, got.Class, got.Reason, tc.want, tc.reason)
			}
		})
	}
}
