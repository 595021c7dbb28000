package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/workspace/trust"
)

// TestUntrustedConfigOnlyTightens plants each widening setting in a
// repository configuration (as a command could, where .autarch did not
// exist) and checks that it is dropped and named until the user trusts
// the content, while restricting settings apply untrusted.
func TestUntrustedConfigOnlyTightens(t *testing.T) {
	cases := []struct {
		name, yaml string
		// dropped names the key reported in Loosened ("" for none).
		dropped string
		check   func(t *testing.T, p Project, trusted bool)
	}{
		{"network always", "sandbox:\n  network: always\n", "sandbox.network: always", func(t *testing.T, p Project, trusted bool) {
			if got := p.Settings.Sandbox.Network; (got == NetworkAlways) != trusted {
				t.Errorf("sandbox.network = %q (trusted %v)", got, trusted)
			}
		}},
		{"network never tightens", "sandbox:\n  network: never\n", "", func(t *testing.T, p Project, _ bool) {
			if got := p.Settings.Sandbox.Network; got != NetworkNever {
				t.Errorf("sandbox.network = %q, want never", got)
			}
		}},
		{"allow delete", "workspace:\n  allow_delete: true\n", "workspace.allow_delete: true", func(t *testing.T, p Project, trusted bool) {
			if p.Settings.Workspace.AllowDelete != trusted {
				t.Errorf("allow_delete = %v (trusted %v)", p.Settings.Workspace.AllowDelete, trusted)
			}
		}},
		{"longer timeout", "commands:\n  default_timeout: 300\n", "commands.default_timeout: 300", func(t *testing.T, p Project, trusted bool) {
			if (p.Settings.Commands.DefaultTimeout == 300) != trusted {
				t.Errorf("default_timeout = %d (trusted %v)", p.Settings.Commands.DefaultTimeout, trusted)
			}
		}},
		{"shorter timeout tightens", "commands:\n  default_timeout: 10\n  allowed_only: true\n  enabled: false\n", "", func(t *testing.T, p Project, _ bool) {
			c := p.Settings.Commands
			if c.DefaultTimeout != 10 || !c.AllowedOnly || c.On() {
				t.Errorf("commands = %+v, want the restrictions kept", c)
			}
		}},
		{"unlimited swarm rate", "swarm:\n  rate_limit: {calls: 0, per_sec: 1}\n", "swarm.rate_limit: unlimited", func(t *testing.T, p Project, trusted bool) {
			if (p.Settings.Swarm.RateLimit != nil) != trusted {
				t.Errorf("rate_limit = %v (trusted %v)", p.Settings.Swarm.RateLimit, trusted)
			}
		}},
		{"looser swarm tool rate", "swarm:\n  tools:\n    fs_write: {calls: 1000, per_sec: 1}\n    ctx_set: {calls: 5, per_sec: 60}\n", "swarm.tools.fs_write: 1000 calls per 1 s", func(t *testing.T, p Project, trusted bool) {
			if _, ok := p.Settings.Swarm.Tools["fs_write"]; ok != trusted {
				t.Errorf("fs_write limit kept = %v (trusted %v)", ok, trusted)
			}
			if _, ok := p.Settings.Swarm.Tools["ctx_set"]; !ok {
				t.Error("a stricter ctx_set limit was dropped")
			}
		}},
		{"gates off", "guardrails:\n  quality_gates:\n    enabled: false\n", "guardrails.quality_gates.enabled: false", func(t *testing.T, p Project, trusted bool) {
			if p.Quality.Gates.Off != trusted {
				t.Errorf("gates off = %v (trusted %v)", p.Quality.Gates.Off, trusted)
			}
		}},
		{"fewer gates and paths", "guardrails:\n  quality_gates:\n    gates: [lint]\n    paths: ['docs/**']\n    timeout: 7200\n", "guardrails.quality_gates.gates: [lint]", func(t *testing.T, p Project, trusted bool) {
			g := p.Quality.Gates
			if (len(g.Kinds) == 1) != trusted || (len(g.Paths) == 1) != trusted || (g.Timeout == 2*time.Hour) != trusted {
				t.Errorf("gates = %+v (trusted %v)", g, trusted)
			}
		}},
		{"full gates tighten", "guardrails:\n  quality_gates:\n    full: true\n  protected: ['secrets/**']\n  max_lines_changed: 40\n", "", func(t *testing.T, p Project, _ bool) {
			if !p.Quality.Gates.Full || !slices.Contains(p.Guardrails.ProtectedPaths(), "secrets/**") {
				t.Errorf("restrictions dropped: gates %+v, protected %v", p.Quality.Gates, p.Guardrails.ProtectedPaths())
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, ".autarch"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(c.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			store := trust.At(filepath.Join(t.TempDir(), "trusted.json"))
			p, err := LoadProject(dir, store)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, p, false)
			if c.dropped == "" {
				if len(p.Loosened) > 0 {
					t.Errorf("Loosened = %v, want none", p.Loosened)
				}
			} else {
				if !slices.Contains(p.Loosened, c.dropped) {
					t.Errorf("Loosened = %v, want %q", p.Loosened, c.dropped)
				}
				if msg := p.Untrusted(); !strings.Contains(msg, c.dropped) || !strings.Contains(msg, "autarch trust") {
					t.Errorf("Untrusted() = %q: want it to name %q and say how to trust", msg, c.dropped)
				}
			}
			if err := store.Trust(p.Config); err != nil {
				t.Fatal(err)
			}
			trusted, err := LoadProject(dir, store)
			if err != nil {
				t.Fatal(err)
			}
			if len(trusted.Loosened) > 0 {
				t.Errorf("trusted: Loosened = %v", trusted.Loosened)
			}
			c.check(t, trusted, true)
		})
	}
}
