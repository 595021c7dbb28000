package main

import (
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools"
)

// TestCommandsFlags (001-28: --allow-commands/--no-commands per run): the
// flags override the configuration's commands.enabled for the run's
// agents; both at once is a usage error.
func TestCommandsFlags(t *testing.T) {
	off, on := false, true
	tests := []struct {
		args      []string
		config    *bool
		wantShell bool
	}{
		{nil, nil, true},
		{nil, &off, false},
		{[]string{"--allow-commands"}, &off, true},
		{[]string{"--no-commands"}, nil, false},
		{[]string{"--no-commands"}, &on, false},
	}
	for _, tt := range tests {
		fs := newFlagSet("run", stdio{})
		c := addCommandsFlags(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		if err := c.check(); err != nil {
			t.Fatal(err)
		}
		s := tools.Config{Commands: tools.CommandsConfig{Enabled: tt.config}}
		c.apply(&s)
		reg, err := tools.ForRole("pulsing", tools.Deps{})
		if err != nil {
			t.Fatal(err)
		}
		if reg, err = s.Apply(reg, "pulsing"); err != nil {
			t.Fatal(err)
		}
		if got := reg.Has("shell") && reg.Has("run_tests"); got != tt.wantShell {
			t.Errorf("%v with commands.enabled %v: pulsing has shell and run_tests = %v, want %v", tt.args, tt.config, got, tt.wantShell)
		}
	}
	code, _, stderr := run(t, "run", "--allow-commands", "--no-commands", "add a thing")
	if code != 2 || !strings.Contains(stderr, "--allow-commands and --no-commands contradict each other") {
		t.Errorf("both flags: exit %d, %s", code, stderr)
	}
}
