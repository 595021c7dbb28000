package tools

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/tools/verify"
	"github.com/autarch-dev/autarch/workspace/trust"
)

func TestQualityGatesConfig(t *testing.T) {
	const yamlGates = "guardrails:\n  quality_gates:\n    gates: [test, lint]\n    full: true\n    timeout: 90\n    paths: [\"svc/**\"]\n    commands:\n      test: make test\n"
	tests := []struct {
		name     string
		files    map[string]string
		trusted  bool
		want     verify.Gates
		ignored  []string
		warnings []string
		wantErr  string
	}{
		{name: "none: defaults", files: map[string]string{"README": "x"}},
		{name: "config.yaml untrusted: commands ignored, fewer gates and paths too (they loosen)", files: map[string]string{ConfigFile: yamlGates},
			want: verify.Gates{Full: true, Timeout: 90 * time.Second}, ignored: []string{"make test"}},
		{name: "config.yaml trusted: commands run", files: map[string]string{ConfigFile: yamlGates}, trusted: true,
			want: verify.Gates{Kinds: []verify.Kind{"test", "lint"}, Full: true, Timeout: 90 * time.Second, Paths: []string{"svc/**"}, Commands: map[verify.Kind]string{"test": "make test"}}},
		{name: "off untrusted: ignored", files: map[string]string{ConfigFile: "guardrails:\n  quality_gates:\n    enabled: false\n"}},
		{name: "off trusted", files: map[string]string{ConfigFile: "guardrails:\n  quality_gates:\n    enabled: false\n"}, trusted: true, want: verify.Gates{Off: true}},
		{name: "legacy quality.json still read, with a warning", files: map[string]string{QualityFile: `{"gates": ["build"], "timeoutMs": 1500}`},
			want: verify.Gates{Timeout: 1500 * time.Millisecond}, warnings: []string{".autarch/quality.json is deprecated: move its settings under guardrails.quality_gates"}},
		{name: "config.yaml wins over quality.json", files: map[string]string{QualityFile: `{"gates": ["build"]}`, ConfigFile: "guardrails:\n  quality_gates:\n    gates: [lint]\n"},
			trusted: true, want: verify.Gates{Kinds: []verify.Kind{"lint"}}, warnings: []string{".autarch/quality.json is ignored: .autarch/config.yaml has guardrails.quality_gates"}},
		{name: "unknown gate names line and key", files: map[string]string{ConfigFile: "guardrails:\n  quality_gates:\n    gates: [deploy]\n"},
			wantErr: `.autarch/config.yaml: line 3: key guardrails.quality_gates: unknown gate "deploy": use build, test or lint`},
		{name: "bad timeout type", files: map[string]string{ConfigFile: "guardrails:\n  quality_gates:\n    timeout: soon\n"},
			wantErr: `line 3: key guardrails.quality_gates.timeout: "soon" is not a whole number`},
		{name: "negative timeout", files: map[string]string{ConfigFile: "guardrails:\n  quality_gates:\n    timeout: -1\n"}, wantErr: "timeout must be a positive number of seconds"},
		{name: "command for an unknown gate", files: map[string]string{ConfigFile: "guardrails:\n  quality_gates:\n    commands: {ship: x}\n"}, wantErr: `command for unknown gate "ship"`},
		{name: "legacy bad json", files: map[string]string{QualityFile: `{"gates": 1}`}, wantErr: ".autarch/quality.json: json: cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			store := trust.At(filepath.Join(t.TempDir(), "trusted.json"))
			if tt.trusted {
				cfg, err := trust.Read(dir)
				if err != nil {
					t.Fatal(err)
				}
				store.Trust(cfg)
			}
			p, err := LoadProject(dir, store)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			g := p.Quality.Gates
			if g.Off != tt.want.Off || !slices.Equal(g.Kinds, tt.want.Kinds) || g.Full != tt.want.Full || g.Timeout != tt.want.Timeout ||
				!slices.Equal(g.Paths, tt.want.Paths) || len(g.Commands) != len(tt.want.Commands) || g.Commands["test"] != tt.want.Commands["test"] {
				t.Errorf("gates = %+v, want %+v", g, tt.want)
			}
			if !slices.Equal(p.Quality.Ignored, tt.ignored) {
				t.Errorf("ignored = %v, want %v", p.Quality.Ignored, tt.ignored)
			}
			if tt.ignored != nil && !strings.Contains(p.Untrusted(), "make test") {
				t.Errorf("untrusted gate command not reported: %s", p.Untrusted())
			}
			for _, w := range tt.warnings {
				if !slices.ContainsFunc(p.Warnings, func(s string) bool { return strings.Contains(s, w) }) {
					t.Errorf("warnings %v lack %q", p.Warnings, w)
				}
			}
		})
	}
}
