package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runMain(context.Background(), stdio{in: strings.NewReader(""), out: &out, err: &errb}, args)
	return code, out.String(), errb.String()
}

func TestHelpListsEveryVerb(t *testing.T) {
	code, out, _ := run(t, "--help")
	if code != 0 {
		t.Fatalf("--help exit = %d", code)
	}
	for _, v := range verbs() {
		if !strings.Contains(out, "  "+v.name+" ") || !strings.Contains(out, v.usage) {
			t.Errorf("--help does not list %s (%s)", v.name, v.usage)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "Verbs:"},
		{[]string{"frobnicate"}, `unknown verb "frobnicate"`},
		{[]string{"--frob"}, `unknown flag "--frob"`},
		{[]string{"version", "--nope"}, "flag provided but not defined: -nope"},
		{[]string{"serve", "--log-level", "loud"}, `bad log level "loud"`},
		{[]string{"serve", "extra"}, `unexpected argument "extra" (serve takes only flags)`},
		{[]string{"index", "extra"}, `autarch index: unexpected argument "extra"` + "\n"},
		{[]string{"acp", "extra"}, `unexpected argument "extra" (acp takes only flags; the client sends each session's folder)`},
		{[]string{"acp", "--log-level", "loud"}, `bad log level "loud"`},
		{[]string{"acp", "--nope"}, "flag provided but not defined: -nope"},
		{[]string{"job"}, "usage: autarch job"},
		{[]string{"job", "--apply", "abc", "a task"}, "usage: autarch job"},
		{[]string{"job", "--mode", "wizard", "a task"}, `mode "wizard" is not accepted: use mechanic`},
		{[]string{"swarm"}, "usage: autarch swarm"},
		{[]string{"swarm", "--resume", "0123456789ab", "a task"}, "usage: autarch swarm"},
		{[]string{"swarm", "--agents", "a b=x", "a task"}, `--agents: agent "a b"`},
		{[]string{"swarm", "--agents", "x,x", "a task"}, "named twice"},
		{[]string{"swarm", "--read-only", "--allow-write", "a task"}, "--read-only and --allow-write exclude each other"},
		{[]string{"swarm", "--rounds", "many", "a task"}, "invalid value"},
		{[]string{"swarm", "--list", "a task"}, "usage: autarch swarm"},
		{[]string{"swarm", "--concurrency", "-1", "a task"}, "--concurrency -1: give 1 to 64"},
		{[]string{"swarm", "--concurrency", "65", "a task"}, "--concurrency 65: give 1 to 64"},
		// autarch run --parallel refuses a count below 1 before touching
		// anything.
		{[]string{"run", "--root", t.TempDir(), "--model", "m", "--parallel", "0", "a task"}, "--parallel 0 is not accepted: use 1 (one pulse at a time) or more"},
		{[]string{"run", "--root", t.TempDir(), "--model", "m", "--parallel", "-2", "a task"}, "--parallel -2 is not accepted: use 1 (one pulse at a time) or more"},
		// The operands of the workflow verbs are counted before anything
		// is opened.
		{[]string{"resume"}, "usage: autarch resume"},
		{[]string{"resume", "a", "b"}, "usage: autarch resume"},
		{[]string{"stop"}, "usage: autarch stop"},
		{[]string{"review", "extra"}, "usage: autarch review"},
		{[]string{"redo", "wf"}, "usage: autarch redo"},
		{[]string{"redo", "wf", "p1", "guidance", "more"}, "usage: autarch redo"},
	}
	for _, tt := range tests {
		code, _, errOut := run(t, tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("autarch %q: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, _ := run(t, args...)
		if code != 0 || !strings.HasPrefix(out, "autarch ") {
			t.Errorf("%v: exit %d, out %q", args, code, out)
		}
	}
}
