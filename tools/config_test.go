package tools

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		err      string   // substring of the error ("" when none)
		warnings []string // substrings, in order
		check    func(t *testing.T, c Config)
	}{
		{name: "empty"},
		{
			name: "every key",
			yaml: `hooks:
  pre_tool_use:
    - name: validate-secrets
      command: "bash scripts/check.sh"
      matcher: "write_file|edit_file"
      file_patterns: ["*.py"]
      timeout: 5
  post_tool_use:
    - name: python-lint
      command: "ruff check {file} --no-fix"
      file_patterns: ["*.py"]
  pre_llm_call:
    - {name: budget, command: "true"}
guardrails:
  protected: ["secrets/**"]
  blocked_commands: ["rm -rf /"]
  max_lines_changed: 200
  max_files_changed: 20
  code_rules:
    - {pattern: "eval\\(", message: "no eval", files: ["**/*.py"]}
commands:
  enabled: false
  allowed_only: true
  default_timeout: 120
workspace:
  allow_delete: true
sandbox:
  network: never
mcp:
  servers:
    everything: {command: npx, args: ["-y", "server-everything"], env: {A: "1"}}
    remote: {type: http, url: "http://127.0.0.1:1/mcp", headers: {Authorization: "Bearer x"}}
`,
			check: func(t *testing.T, c Config) {
				hooks := c.HookList()
				if len(hooks) != 3 || hooks[0].Name != "validate-secrets" || hooks[0].Timeout != 5 || hooks[2].Event != EventPreLLMCall {
					t.Errorf("hooks = %+v", hooks)
				}
				if g := c.Guardrails; g == nil || g.MaxLinesChanged != 200 || len(g.CodeRules) != 1 || g.CodeRules[0].re == nil || len(g.blockedREs) != 1 {
					t.Errorf("guardrails = %+v", g)
				}
				if c.Commands.On() || !c.Commands.AllowedOnly || c.Commands.DefaultTimeout != 120 || !c.Workspace.AllowDelete || c.Sandbox.Network != "never" {
					t.Errorf("settings = %+v %+v %+v", c.Commands, c.Workspace, c.Sandbox)
				}
				if s := c.MCP.Servers["everything"]; s.Transport() != "stdio" || s.Env["A"] != "1" || len(s.Args) != 2 {
					t.Errorf("stdio server = %+v", s)
				}
				if s := c.MCP.Servers["remote"]; s.Transport() != "http" || s.Headers["Authorization"] != "Bearer x" {
					t.Errorf("http server = %+v", s)
				}
			},
		},
		{
			name: "legacy post_edit",
			yaml: "hooks:\n  post_edit:\n    - command: gofmt -l {file}\n",
			check: func(t *testing.T, c Config) {
				h := c.HookList()
				if len(h) != 1 || h[0].Event != EventPostToolUse || !h[0].re.MatchString("write_file") || h[0].re.MatchString("read_file") {
					t.Errorf("post_edit = %+v", h)
				}
			},
		},
		{
			name:     "unknown keys warn",
			yaml:     "colour: blue\nhooks:\n  pre_tool_use:\n    - command: x\n      nmae: typo\ncommands:\n  enabled: true\n  shell: zsh\n",
			warnings: []string{"line 1: unknown key colour", "line 5: unknown key hooks.pre_tool_use[0].nmae", "line 8: unknown key commands.shell"},
		},
		{name: "syntax", yaml: "hooks:\n  pre_tool_use: [\n", err: "line 2"},
		{name: "wrong type", yaml: "commands:\n  default_timeout: soon\n", err: `line 2: key commands.default_timeout: "soon" is not a whole number`},
		{name: "timeout too long", yaml: "commands:\n  default_timeout: 900\n", err: `line 2: key commands.default_timeout: 900: use seconds from 1 to 300 (0 or no key: 60)`},
		{name: "negative timeout", yaml: "commands:\n  default_timeout: -1\n", err: `key commands.default_timeout: -1: use seconds from 1 to 300`},
		{name: "list expected", yaml: "guardrails:\n  protected: secrets/**\n", err: "line 2: key guardrails.protected: expected a list"},
		{name: "unknown event", yaml: "hooks:\n  before_lunch:\n    - command: x\n", err: "line 3: key hooks.before_lunch: unknown event"},
		{name: "hook without command", yaml: "hooks:\n  on_error:\n    - name: x\n", err: "line 3: key hooks.on_error[0]: a hook needs an event and a command"},
		{name: "bad matcher", yaml: "hooks:\n  pre_tool_use:\n    -\n      command: x\n      matcher: \"(\"\n", err: "line 4: key hooks.pre_tool_use[0]: matcher"},
		{name: "bad code rule", yaml: "\nguardrails:\n  code_rules: [{pattern: \"(\", message: m}]\n", err: "line 3: key guardrails: code rule"},
		{name: "bad network", yaml: "sandbox:\n  network: sometimes\n", err: `line 2: key sandbox.network: "sometimes"`},
		{name: "server without command", yaml: "mcp:\n  servers:\n    x: {args: [a]}\n", err: "line 3: key mcp.servers.x: a stdio server needs a command"},
		{name: "not a mapping", yaml: "- a\n- b\n", err: "line 1: key the top level: expected a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, warnings, err := ParseConfig([]byte(tt.yaml))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), ConfigFile) {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(warnings) != len(tt.warnings) {
				t.Fatalf("warnings = %q, want %q", warnings, tt.warnings)
			}
			for i, w := range tt.warnings {
				if !strings.Contains(warnings[i], w) {
					t.Errorf("warning %d = %q, want %q", i, warnings[i], w)
				}
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

func TestLoadProjectConfig(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		trusted  bool
		hooks    int
		ignored  int
		protect  string
		warnings []string
		err      string
	}{
		{
			name:    "yaml trusted",
			files:   map[string]string{ConfigFile: "hooks:\n  post_tool_use:\n    - {name: fmt, command: 'true'}\nguardrails:\n  protected: [\"vault/**\"]\n"},
			trusted: true, hooks: 1, protect: "vault/**",
		},
		{
			name:    "yaml untrusted: hooks and servers ignored, guardrails kept",
			files:   map[string]string{ConfigFile: "hooks:\n  post_tool_use:\n    - {command: 'true'}\nguardrails:\n  protected: [\"vault/**\"]\nmcp:\n  servers:\n    x: {command: srv}\n"},
			ignored: 2, protect: "vault/**",
		},
		{
			name: "legacy files still work, with warnings",
			files: map[string]string{
				HooksFile:      `{"hooks": [{"event": "post_edit", "command": "true"}]}`,
				GuardrailsFile: `{"protected": ["old/**"]}`,
			},
			trusted: true, hooks: 1, protect: "old/**",
			warnings: []string{GuardrailsFile + " is deprecated", HooksFile + " is deprecated"},
		},
		{
			name: "both: yaml and legacy hooks run, yaml guardrails win",
			files: map[string]string{
				ConfigFile:     "hooks:\n  on_error:\n    - {command: 'true'}\nguardrails:\n  protected: [\"new/**\"]\n",
				HooksFile:      `{"hooks": [{"event": "error", "command": "true"}]}`,
				GuardrailsFile: `{"protected": ["old/**"]}`,
			},
			trusted: true, hooks: 2, protect: "new/**",
			warnings: []string{GuardrailsFile + " is ignored", HooksFile + " is deprecated"},
		},
		{name: "broken yaml", files: map[string]string{ConfigFile: "workspace:\n  allow_delete: maybe\n"}, err: "line 2: key workspace.allow_delete"},
		{name: "broken .mcp.json: a warning", files: map[string]string{MCPFile: `{"mcpServers": {"x": {"type": "http"}}}`}, warnings: []string{"needs a url"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			p, err := loadProject(t, dir, tt.trusted)
			if testkit.WantErr(t, err, tt.err) {
				return
			}
			if got := len(p.Hooks.active()); got != tt.hooks {
				t.Errorf("hooks = %d, want %d", got, tt.hooks)
			}
			if len(p.Ignored) != tt.ignored {
				t.Errorf("ignored = %q", p.Ignored)
			}
			if tt.protect != "" && !slices.Contains(p.Guardrails.ProtectedPaths(), tt.protect) {
				t.Errorf("%s not protected by %+v", tt.protect, p.Guardrails)
			}
			if len(p.Warnings) != len(tt.warnings) {
				t.Fatalf("warnings = %q", p.Warnings)
			}
			for i, w := range tt.warnings {
				if !strings.Contains(p.Warnings[i], w) {
					t.Errorf("warning %d = %q, want %q", i, p.Warnings[i], w)
				}
			}
		})
	}
}

func TestHookFileAndEnvironment(t *testing.T) {
	dir := t.TempDir()
	h, err := NewHooks(dir, []Hook{
		{Name: "env", Event: EventPostToolUse, Files: []string{"*.go"}, Command: `echo "$AUTARCH_EVENT $AUTARCH_TOOL $AUTARCH_FILE $AUTARCH_AGENT $AUTARCH_WORKFLOW $AUTARCH_SESSION" {file}`},
		{Name: "lint", Event: EventPostToolUse, Files: []string{"*.go"}, Command: "echo bad {file}; exit 1"},
		{Name: "py", Event: EventPostToolUse, Files: []string{"*.py"}, Command: "echo never"},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithHookContext(context.Background(), HookContext{Agent: "pulsing", Workflow: "wf1", Session: "s1"})
	out := h.Fire(ctx, EventPostToolUse, "write_file", "pkg/it's.go", nil)
	want := []string{"post_tool_use write_file pkg/it's.go pulsing wf1 s1 pkg/it's.go", "[Hook lint: FAILED (exit 1)]\nbad pkg/it's.go"}
	if strings.Join(out.Context, "|") != strings.Join(want, "|") {
		t.Errorf("context = %q, want %q", out.Context, want)
	}
}

func TestConfigApply(t *testing.T) {
	off, on := false, true
	tests := []struct {
		name, role string
		cfg        Config
		has, not   []string
	}{
		{name: "defaults", role: "pulsing", has: []string{"shell", "run_tests"}, not: []string{"delete_file"}},
		{name: "allow_delete: pulsing", role: "pulsing", cfg: Config{Workspace: WorkspaceConfig{AllowDelete: true}}, has: []string{"delete_file", "write_file"}},
		{name: "allow_delete: not plan", role: "plan", cfg: Config{Workspace: WorkspaceConfig{AllowDelete: true}}, not: []string{"delete_file"}},
		{name: "commands off", role: "preflight", cfg: Config{Commands: CommandsConfig{Enabled: &off}}, has: []string{"read_file"}, not: []string{"shell", "run_tests", "run_lint", "record_baseline", "read_lints"}},
		{name: "commands off: pulsing", role: "pulsing", cfg: Config{Commands: CommandsConfig{Enabled: &off}}, has: []string{"write_file", "edit_file"}, not: []string{"shell", "run_tests", "run_lint", "read_lints"}},
		{name: "commands off: every tool", role: "", cfg: Config{Commands: CommandsConfig{Enabled: &off}, Workspace: WorkspaceConfig{AllowDelete: true}}, has: []string{"delete_file"}, not: []string{"shell", "run_tests", "run_lint", "record_baseline"}},
		{name: "commands on explicitly", role: "pulsing", cfg: Config{Commands: CommandsConfig{Enabled: &on}}, has: []string{"shell", "run_tests"}},
		{name: "allow_delete: not preflight", role: "preflight", cfg: Config{Workspace: WorkspaceConfig{AllowDelete: true}}, not: []string{"delete_file"}},
		{name: "allow_delete: not research", role: "research", cfg: Config{Workspace: WorkspaceConfig{AllowDelete: true}}, not: []string{"delete_file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, err := ForRole(tt.role, Deps{})
			if tt.role == "" {
				reg, err = All(Deps{})
			}
			if err != nil {
				t.Fatal(err)
			}
			if reg, err = tt.cfg.Apply(reg, tt.role); err != nil {
				t.Fatal(err)
			}
			for _, n := range tt.has {
				if !reg.Has(n) {
					t.Errorf("%s missing from %v", n, reg.Names())
				}
			}
			for _, n := range tt.not {
				if reg.Has(n) {
					t.Errorf("%s in %v", n, reg.Names())
				}
			}
		})
	}
}
