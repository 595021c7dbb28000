package workflow

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// The quality gates a running engine runs at a pulse's completion follow
// the project's reloads: a command of untrusted content is ignored, the
// same command trusted is run.
func TestEngineQualityGatesFollowReload(t *testing.T) {
	dir, cfgPath, store, p, e := gatedProject(t, "guardrails:\n  max_lines_changed: 100\n")
	if err := os.WriteFile(cfgPath, []byte("guardrails:\n  quality_gates:\n    commands: {test: make check}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.Reload()
	if q, err := e.quality(); err != nil || len(q.Gates.Commands) != 0 {
		t.Errorf("untrusted: gates %+v, %v; want the command ignored", q.Gates, err)
	}
	cfg, err := trust.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Trust(cfg); err != nil {
		t.Fatal(err)
	}
	p.Reload()
	if q, err := e.quality(); err != nil || q.Gates.Commands["test"] != "make check" {
		t.Errorf("trusted: gates %+v, %v; want make check", q.Gates, err)
	}
}

// Trusting the configuration the project was opened with lets the running
// engine's gates run its commands.
func TestProjectTrustEnablesGateCommands(t *testing.T) {
	_, _, _, p, e := gatedProject(t, "guardrails:\n  quality_gates:\n    commands: {lint: make lint}\n")
	if q, _ := e.quality(); len(q.Gates.Commands) != 0 {
		t.Fatalf("untrusted at open: gates %+v", q.Gates)
	}
	if err := p.Trust(); err != nil {
		t.Fatal(err)
	}
	if q, _ := e.quality(); q.Gates.Commands["lint"] != "make lint" {
		t.Errorf("trusted: gates %+v, want make lint", q.Gates)
	}
}

// gatedProject is a committed repository whose config.yaml is content,
// opened untrusted, and an engine over it.
func gatedProject(t *testing.T, content string) (dir, cfgPath string, store *trust.Store, p *Project, e *Engine) {
	t.Helper()
	ctx := context.Background()
	dir = t.TempDir()
	cfgPath = filepath.Join(dir, ".autarch", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(cfgPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-q", "-m", "initial"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	store = trust.At(filepath.Join(t.TempDir(), "trusted.json"))
	p, err := OpenProject(ctx, dir, store)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	e, err = p.Engine(ctx, Config{Editor: &editor.Terminal{}, Model: openai.New(openai.Config{BaseURL: "http://127.0.0.1:1", APIKey: "test", MaxRetries: -1})})
	if err != nil {
		t.Fatal(err)
	}
	return dir, cfgPath, store, p, e
}
