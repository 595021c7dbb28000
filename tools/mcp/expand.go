package mcp

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sync"

	"github.com/autarch-dev/autarch/tools"
)

// varRef is ${NAME} in a server's configuration.
var varRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`) })

// expand replaces every ${NAME} in s with the variable's value from
// getenv; a variable that is unset or empty is an error naming it (a
// bearer header sent as "Bearer " would fail less clearly, later).
func expand(s, where string, getenv func(string) string) (string, error) {
	var missing string
	out := varRef().ReplaceAllStringFunc(s, func(ref string) string {
		name := varRef().FindStringSubmatch(ref)[1]
		v := getenv(name)
		if v == "" && missing == "" {
			missing = name
		}
		return v
	})
	if missing != "" {
		return "", fmt.Errorf("%s uses ${%s}, which is not set in Autarch's environment: export it before starting Autarch (or the editor)", where, missing)
	}
	return out, nil
}

// expanded is cfg with ${NAME} replaced in its command, args, env values,
// url and header values (as .mcp.json files written for other agents use
// them, e.g. "Authorization": "Bearer ${GITHUB_TOKEN}").
func expanded(cfg tools.MCPServer, getenv func(string) string) (tools.MCPServer, error) {
	var err error
	if cfg.Command, err = expand(cfg.Command, "command", getenv); err != nil {
		return cfg, err
	}
	if cfg.URL, err = expand(cfg.URL, "url", getenv); err != nil {
		return cfg, err
	}
	args := make([]string, len(cfg.Args))
	for i, a := range cfg.Args {
		if args[i], err = expand(a, fmt.Sprintf("args[%d]", i), getenv); err != nil {
			return cfg, err
		}
	}
	cfg.Args = args
	expandMap := func(m map[string]string, what string) (map[string]string, error) {
		if m == nil {
			return nil, nil
		}
		out := make(map[string]string, len(m))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			v, err := expand(m[k], what+" "+k, getenv)
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	}
	if cfg.Env, err = expandMap(cfg.Env, "env"); err != nil {
		return cfg, err
	}
	if cfg.Headers, err = expandMap(cfg.Headers, "header"); err != nil {
		return cfg, err
	}
	return cfg, nil
}
