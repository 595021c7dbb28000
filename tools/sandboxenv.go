package tools

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/autarch-dev/autarch/tools/websearch"
	"github.com/autarch-dev/autarch/workspace/sandbox"
)

// EnvSandboxEnv names the variables the user adds to commands'
// environment, comma or space separated (AUTARCH_SANDBOX_ENV=NAME1,NAME2).
const EnvSandboxEnv = "AUTARCH_SANDBOX_ENV"

// sandboxEnvNames are the names the user adds to commands' environment
// (CommandPolicy.Env): those of AUTARCH_SANDBOX_ENV (getenv) and of
// sandbox.env in the user's config file at userFile (absent: none). Only
// the user's own settings count: a repository's config.yaml cannot add
// any (its sandbox.env is an unknown key).
func sandboxEnvNames(getenv func(string) string, userFile string) ([]string, error) {
	names := strings.FieldsFunc(getenv(EnvSandboxEnv), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	for _, n := range names {
		if why := sandbox.ReservedEnvName(n); why != "" {
			return nil, fmt.Errorf("%s: %q: %s; list the variables commands may see, e.g. %s=MY_TOOL_HOME,MY_DB_URL", EnvSandboxEnv, n, why, EnvSandboxEnv)
		}
	}
	fromFile, err := readUserSandboxEnv(userFile)
	if err != nil {
		return nil, err
	}
	for _, n := range fromFile {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names, nil
}

// readUserSandboxEnv reads sandbox.env (a list of variable names) of the
// user's config file at path.
func readUserSandboxEnv(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var f struct {
		Sandbox struct {
			Env []string `yaml:"env"`
		} `yaml:"sandbox"`
	}
	if err := yaml.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w (expected sandbox: {env: [NAME, …]}: the variables commands may see)", path, err)
	}
	for _, n := range f.Sandbox.Env {
		if why := sandbox.ReservedEnvName(n); why != "" {
			return nil, fmt.Errorf("%s: sandbox.env: %q: %s; list the variables commands may see, e.g. env: [MY_TOOL_HOME]", path, n, why)
		}
	}
	return f.Sandbox.Env, nil
}

// EnvReport says which variables the user added to commands'
// environment and which of them are set here (names only), for autarch
// doctor.
func (p CommandPolicy) EnvReport(environ []string) string {
	where := EnvSandboxEnv + ", sandbox.env in " + userConfigHint()
	if len(p.Env) == 0 {
		return "environment added by you: none (" + where + ")"
	}
	passed := sandbox.EnvNames(sandbox.PassEnv(environ, p.Env))
	var unset []string
	for _, n := range p.Env {
		if !slices.Contains(passed, n) {
			unset = append(unset, n)
		}
	}
	s := "environment added by you (" + where + "): " + strings.Join(passed, " ")
	if len(unset) > 0 {
		s += "; not set here: " + strings.Join(unset, " ")
	}
	return s
}

func userConfigHint() string {
	if p, err := websearch.UserFile(); err == nil {
		return p
	}
	return "~/.config/autarch/config.yaml"
}
