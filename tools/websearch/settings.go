package websearch

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// Environment variables that configure the provider; they override the
// user's config file.
const (
	EnvProvider = "AUTARCH_WEB_SEARCH_PROVIDER"
	EnvURL      = "AUTARCH_WEB_SEARCH_URL"
	EnvKey      = "AUTARCH_WEB_SEARCH_KEY"
)

// Settings say which provider to ask, where, and with which key. The
// repository's .autarch/config.yaml may name a provider and URL (web_search:
// provider, url) but never a key: keys live in the user's config file
// (<user config dir>/autarch/config.yaml) or the environment.
type Settings struct {
	// Provider is searxng or brave (default: searxng when URL is set).
	Provider string `yaml:"provider" json:"provider,omitempty"`
	// URL is the SearXNG instance, or the Brave endpoint (default BraveURL).
	URL string `yaml:"url" json:"url,omitempty"`
	// Key is the hosted API's key (user config and environment only).
	Key string `yaml:"key" json:"-"`
}

// Configured reports whether s names a provider.
func (s Settings) Configured() bool { return s.Provider != "" || s.URL != "" }

// normalized fills the defaults: searxng when only a URL is given, Brave's
// endpoint when brave names none.
func (s Settings) normalized() Settings {
	if s.Provider == "" && s.URL != "" {
		s.Provider = SearXNG
	}
	if s.Provider == Brave && s.URL == "" {
		s.URL = BraveURL
	}
	return s
}

// Sources are where settings come from, in the order they are consulted.
type Sources struct {
	// Getenv reads the environment (nil: none).
	Getenv func(string) string
	// User is the user's config file's web_search section.
	User Settings
	// Repository is the repository's web_search section, given only when
	// the user trusts the repository's configuration (it decides where
	// the agents' queries go).
	Repository Settings
}

// Resolve picks the settings in force: the environment's, else the user's
// file's, else the repository's. The key comes from the environment or the
// user's file; it is given to a repository-named provider only at the
// provider's own endpoint (never to a URL the repository chose). ok is
// false when nothing is configured.
func Resolve(src Sources) (s Settings, from string, ok bool) {
	env := Settings{}
	if src.Getenv != nil {
		env = Settings{Provider: src.Getenv(EnvProvider), URL: src.Getenv(EnvURL), Key: src.Getenv(EnvKey)}
	}
	userKey := func(provider string) string {
		if env.Key != "" {
			return env.Key
		}
		if src.User.normalized().Provider == provider {
			return src.User.Key
		}
		return ""
	}
	switch {
	case env.Configured():
		env = env.normalized()
		env.Key = userKey(env.Provider)
		return env, "environment (" + EnvProvider + ", " + EnvURL + ")", true
	case src.User.Configured():
		u := src.User.normalized()
		if env.Key != "" {
			u.Key = env.Key
		}
		return u, "user config " + userFileHint(), true
	case src.Repository.Configured():
		r := src.Repository
		r.Key = ""
		if r.URL == "" {
			r = r.normalized()
			r.Key = userKey(r.Provider)
		}
		return r.normalized(), "repository .autarch/config.yaml", true
	}
	return Settings{}, "", false
}

// UserFile is the user's config file: <user config dir>/autarch/config.yaml.
func UserFile() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("locating the user config dir: %w", err)
	}
	return filepath.Join(dir, "autarch", "config.yaml"), nil
}

func userFileHint() string {
	if p, err := UserFile(); err == nil {
		return p
	}
	return "~/.config/autarch/config.yaml"
}

// ReadUser reads the web_search section of the user's config file at path
// (absent: no settings).
func ReadUser(path string) (Settings, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Settings{}, nil
	}
	if err != nil {
		return Settings{}, fmt.Errorf("reading %s: %w", path, err)
	}
	var f struct {
		WebSearch Settings `yaml:"web_search"`
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Settings{}, nil
	}
	if err := yaml.Unmarshal(data, &f); err != nil {
		return Settings{}, fmt.Errorf("%s: %w (expected web_search: {provider: searxng|brave, url: …, key: …})", path, err)
	}
	return f.WebSearch, nil
}
