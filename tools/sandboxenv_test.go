package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSandboxEnvNames(t *testing.T) {
	dir := t.TempDir()
	file := func(content string) string {
		p := filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_")+".yaml")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name    string
		env     string
		file    string // content of the user's config file; "" none
		want    []string
		wantErr string
	}{
		{name: "nothing", want: nil},
		{name: "environment", env: "MY_TOOL_HOME, MY_DB_URL NPM_TOKEN", want: []string{"MY_TOOL_HOME", "MY_DB_URL", "NPM_TOKEN"}},
		{name: "user file", file: "web_search:\n  provider: searxng\nsandbox:\n  env: [MY_TOOL_HOME]\n", want: []string{"MY_TOOL_HOME"}},
		{name: "both, once each", env: "A_1,MY_TOOL_HOME", file: "sandbox:\n  env: [MY_TOOL_HOME, B_2]\n", want: []string{"A_1", "MY_TOOL_HOME", "B_2"}},
		{name: "HOME refused", env: "HOME", wantErr: "set by the sandbox itself"},
		{name: "Autarch's own refused", file: "sandbox:\n  env: [AUTARCH_EMBEDDINGS_API_KEY]\n", wantErr: "Autarch's own"},
		{name: "malformed name", env: "A-B", wantErr: "not a variable name"},
		{name: "malformed file", file: "sandbox: [\n", wantErr: "expected sandbox: {env:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "absent.yaml")
			if tt.file != "" {
				path = file(tt.file)
			}
			getenv := func(k string) string {
				if k == EnvSandboxEnv {
					return tt.env
				}
				return ""
			}
			got, err := sandboxEnvNames(getenv, path)
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case !slices.Equal(got, tt.want):
				t.Fatalf("names = %q, want %q", got, tt.want)
			}
		})
	}
}

// A repository's config.yaml cannot add variables: sandbox.env there is
// an unknown key, reported, and nowhere in the policy.
func TestRepositoryConfigCannotAddEnv(t *testing.T) {
	cfg, warnings, err := ParseConfig([]byte("sandbox:\n  env: [NPM_TOKEN]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(warnings, "\n"), "sandbox.env") {
		t.Errorf("no warning for sandbox.env: %q", warnings)
	}
	if p := cfg.Commands.Policy(CommandPolicy{}); len(p.Env) != 0 {
		t.Errorf("repository config added %q", p.Env)
	}
}

// The real sandbox, through the shell tool: the user's names pass, a
// credential of the server's environment does not.
func TestShellUserEnv(t *testing.T) {
	t.Setenv("MY_TOOL_HOME", "/opt/mytool")
	t.Setenv("MYSQL_PWD", "s3cr3t-mysql")
	t.Setenv("NPM_TOKEN", "s3cr3t-npm")
	h := newHarness(t, "pulsing", SessionConfig{Commands: CommandPolicy{Env: []string{"MY_TOOL_HOME"}}})
	res := h.call("shell", map[string]any{"command": "env | cut -d= -f1; echo \"tool=$MY_TOOL_HOME\""})
	if !strings.Contains(res.Output, "tool=/opt/mytool") {
		t.Errorf("the user's variable did not pass: %s", res.Output)
	}
	for _, name := range []string{"MYSQL_PWD", "NPM_TOKEN"} {
		if strings.Contains(res.Output, name) {
			t.Errorf("%s reached the command: %s", name, res.Output)
		}
	}
}

func TestEnvReport(t *testing.T) {
	p := CommandPolicy{Env: []string{"MY_TOOL_HOME", "NOT_SET"}}
	got := p.EnvReport([]string{"MY_TOOL_HOME=s3cr3t-value", "OTHER=x"})
	if !strings.Contains(got, ": MY_TOOL_HOME; not set here: NOT_SET") || strings.Contains(got, "s3cr3t") {
		t.Errorf("EnvReport = %q", got)
	}
	if got := (CommandPolicy{}).EnvReport(nil); !strings.Contains(got, "none") {
		t.Errorf("EnvReport = %q", got)
	}
}
