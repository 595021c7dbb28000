package workflow_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// A configuration file edited while the project is open: a broken one
// keeps the last good configuration in force (the warning names the line
// and the key), unknown keys are warnings, and changed content runs only
// once trusted again.
func TestProjectReloadKeepsLastGoodConfig(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, ".autarch", "config.yaml")
	write := func(content string) {
		t.Helper()
		must(t, os.MkdirAll(filepath.Dir(cfgPath), 0o755))
		must(t, os.WriteFile(cfgPath, []byte(content), 0o644))
	}
	write("hooks:\n  post_tool_use:\n    - name: lint\n      command: echo first\n")
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "-c", "user.name=User", "-c", "user.email=user@example.com", "commit", "-q", "-m", "initial")
	store := trust.At(filepath.Join(t.TempDir(), "trusted.json"))
	cfg, err := trust.Read(dir)
	must(t, err)
	must(t, store.Trust(cfg))
	p, err := workflow.OpenProject(ctx, dir, store)
	must(t, err)
	defer p.Close()
	if got := p.Hooks.Commands(); !slices.Equal(got, []string{"post_tool_use: echo first"}) {
		t.Fatalf("hooks at open = %v", got)
	}

	write("hooks:\n  post_tool_use:\n    - name: lint\n      command: echo second\n      timeout: soon\n")
	warnings := p.Reload()
	if len(warnings) != 1 || !strings.Contains(warnings[0], "line 5: key hooks.post_tool_use[0].timeout") ||
		!strings.Contains(warnings[0], "the last good configuration stays in force") {
		t.Errorf("broken file: warnings = %q", warnings)
	}
	if got := p.Hooks.Commands(); !slices.Equal(got, []string{"post_tool_use: echo first"}) {
		t.Errorf("broken file: hooks = %v, want the last good ones", got)
	}

	write("hooks:\n  post_tool_use:\n    - name: lint\n      command: echo second\ncolour: blue\n")
	warnings = p.Reload()
	joined := strings.Join(warnings, "\n")
	if !strings.Contains(joined, "line 5: unknown key colour (ignored") || !strings.Contains(joined, "changed since it was trusted") {
		t.Errorf("changed file: warnings = %q", warnings)
	}
	if got := p.Hooks.Commands(); len(got) != 0 {
		t.Errorf("untrusted changed content runs hooks %v", got)
	}

	cfg, err = trust.Read(dir)
	must(t, err)
	must(t, store.Trust(cfg))
	warnings = p.Reload()
	if got := p.Hooks.Commands(); !slices.Equal(got, []string{"post_tool_use: echo second"}) || len(warnings) != 1 {
		t.Errorf("trusted again: hooks = %v, warnings = %q (want the unknown key only)", got, warnings)
	}
}
