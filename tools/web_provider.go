package tools

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/autarch-dev/autarch/tools/websearch"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// webSearchTimeout bounds one request to the web search provider.
const webSearchTimeout = 20 * time.Second

// checkWebSearch checks ConfigFile's web_search: a known provider, an
// http(s) URL, and no key (the repository is read by everyone who can
// read it, agents and their commands included).
func checkWebSearch(s websearch.Settings) error {
	if s.Key != "" {
		return fmt.Errorf("an API key must not be in the repository's %s (anyone who can read the repository can read it): remove it and set %s, or web_search.key in your user config (<user config dir>/autarch/config.yaml)", ConfigFile, websearch.EnvKey)
	}
	if !s.Configured() {
		return nil
	}
	switch s.Provider {
	case "", websearch.SearXNG, websearch.Brave:
	default:
		return fmt.Errorf("provider %q: use %s or %s", s.Provider, websearch.SearXNG, websearch.Brave)
	}
	if s.Provider == websearch.SearXNG && s.URL == "" {
		return errors.New("provider searxng needs url: the instance's address, e.g. http://127.0.0.1:8888")
	}
	return nil
}

// WebSearchProvider is the web search the user configured for this
// project: the environment's (AUTARCH_WEB_SEARCH_*), else the user config
// file's (userFile, "" for none), else the repository's web_search when the
// user trusts the repository's configuration. nil, "" when none is: the
// web tools are then offered to no agent. note tells what is in force or
// why the configuration is not usable.
func (p Project) WebSearchProvider(getenv func(string) string, userFile string) (provider WebSearcher, note string, err error) {
	var user websearch.Settings
	if userFile != "" {
		if user, err = websearch.ReadUser(userFile); err != nil {
			return nil, "", err
		}
	}
	src := websearch.Sources{Getenv: getenv, User: user}
	if p.Trust == trust.Trusted {
		src.Repository = p.Settings.WebSearch
	}
	s, from, ok := websearch.Resolve(src)
	if !ok {
		return nil, "", nil
	}
	web, err := websearch.New(s, &http.Client{Timeout: webSearchTimeout})
	if err != nil {
		return nil, "", fmt.Errorf("web search (%s): %w", from, err)
	}
	return web, fmt.Sprintf("web search: %s (from %s)", web.Name(), from), nil
}
