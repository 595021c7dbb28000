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
		{[]string{"serve", "extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		code, _, errOut := run(t, tt.args...)
		if code != 2 {
			t.Errorf("%v: exit = %d, want 2", tt.args, code)
		}
		if !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: stderr %q lacks %q", tt.args, errOut, tt.want)
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
