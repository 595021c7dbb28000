package tools

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/autarch-dev/autarch/workspace/trust"
)

// Project is a repository's configuration as it applies to sessions:
// guardrails always (they can only restrict), hooks and MCP servers only
// when the user trusts the repository's executable configuration.
type Project struct {
	Hooks *Hooks
	// Guardrails also carry Quality, the quality gates (Guardrails.Quality).
	Guardrails *Guardrails
	// Settings is ConfigFile's content (hooks and guardrails also as above).
	Settings Config
	// Warnings are unknown keys and deprecated files, for the user.
	Warnings []string
	// Config is the executable configuration found, and Trust what the
	// user's trust store says of it.
	Config trust.Config
	Trust  trust.Status
	// Ignored are the hooks' (and quality gates') commands that were not
	// loaded for want of trust.
	Ignored []string
	// Quality configures the quality gates run at a pulse's completion.
	Quality Quality
	// Loosened are the settings of an untrusted configuration that were
	// dropped because they would widen what agents may do (tightenOnly).
	Loosened []string
}

// LoadProject reads the configuration of the repository (or workspace) at
// dir. Hooks run only from content the store records as trusted; an
// untrusted configuration is parsed (so that it can be shown to the user)
// and ignored. A nil store trusts nothing.
func LoadProject(dir string, store *trust.Store) (p Project, err error) {
	cfg, err := trust.Read(dir)
	if err != nil {
		return Project{}, err
	}
	settings, warnings, err := ParseConfig(cfg.File(ConfigFile))
	if err != nil {
		return Project{}, err
	}
	guard := settings.Guardrails
	if legacy, lerr := readConfig(dir, GuardrailsFile); lerr == nil && len(legacy) > 0 {
		if guard != nil {
			warnings = append(warnings, fmt.Sprintf("%s is ignored: %s has a guardrails key (delete the old file)", GuardrailsFile, ConfigFile))
		} else {
			warnings = append(warnings, fmt.Sprintf("%s is deprecated: move its settings under guardrails: in %s", GuardrailsFile, ConfigFile))
		}
	}
	if guard == nil {
		if guard, err = LoadGuardrails(dir); err != nil {
			return Project{}, err
		}
	}
	if cfg.File(HooksFile) != nil {
		warnings = append(warnings, fmt.Sprintf("%s is deprecated: move its hooks under hooks: in %s (per event: name, command, matcher, file_patterns, timeout)", HooksFile, ConfigFile))
	}
	p = Project{Guardrails: guard, Settings: settings, Warnings: warnings, Config: cfg, Trust: trust.None, Hooks: &Hooks{dir: cfg.Repo}}
	if cfg.Empty() {
		p.Guardrails.SetQuality(p.Quality)
		return p, nil
	}
	defer func() {
		if err == nil {
			if p.Quality, err = p.quality(); err == nil {
				p.Ignored = append(p.Ignored, p.Quality.Ignored...)
				p.Loosened = append(p.Loosened, p.Quality.Loosened...)
				p.Guardrails.SetQuality(p.Quality)
			}
		}
	}()
	hooks, err := HooksOf(cfg)
	if err != nil {
		return Project{}, err
	}
	p.Trust = trust.New
	if store != nil {
		if p.Trust, err = store.Check(cfg); err != nil {
			return Project{}, err
		}
	}
	if p.Trust == trust.Trusted {
		p.Hooks = hooks
		return p, nil
	}
	var dropped []loosening
	p.Settings, dropped = p.Settings.tightenOnly()
	for _, d := range dropped {
		p.Loosened = append(p.Loosened, d.String())
	}
	p.Ignored = hooks.Commands()
	servers, merr := p.MCPServers()
	if merr != nil { // .mcp.json is other agents' format too: reported, not fatal
		p.Warnings = append(p.Warnings, merr.Error())
	}
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		p.Ignored = append(p.Ignored, "MCP server "+name+": "+servers[name].describe())
	}
	for _, name := range slices.Sorted(maps.Keys(p.Settings.LanguageServers)) {
		p.Ignored = append(p.Ignored, "language server "+name+": "+p.Settings.LanguageServers[name].describe())
	}
	p.Settings.LanguageServers = nil // each runs a process: trusted configuration only
	if w := p.Settings.WebSearch; w.Configured() {
		p.Ignored = append(p.Ignored, "web search provider "+strings.TrimSpace(w.Provider+" "+w.URL))
	}
	return p, nil
}

// quality reads the quality gates: ConfigFile's guardrails.quality_gates,
// else the legacy QualityFile (with a deprecation warning). Their commands
// count only when the configuration is trusted.
func (p *Project) quality() (Quality, error) {
	trusted := p.Trust == trust.Trusted
	legacy := p.Config.File(QualityFile)
	if g := p.Settings.Guardrails; g != nil && g.QualityGates != nil {
		if legacy != nil {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s is ignored: %s has guardrails.quality_gates (delete the old file)", QualityFile, ConfigFile))
		}
		return g.QualityGates.Quality(trusted)
	}
	if legacy != nil {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s is deprecated: move its settings under guardrails.quality_gates in %s (timeoutMs becomes timeout, in seconds)", QualityFile, ConfigFile))
	}
	return ParseQuality(legacy, trusted)
}

// HooksOf reads the hooks of a repository's configuration, whatever its
// trust: ConfigFile's, then the legacy HooksFile's.
func HooksOf(cfg trust.Config) (*Hooks, error) {
	settings, _, err := ParseConfig(cfg.File(ConfigFile))
	if err != nil {
		return nil, err
	}
	legacy, err := ParseHooks(cfg.Repo, cfg.File(HooksFile))
	if err != nil {
		return nil, err
	}
	return NewHooks(cfg.Repo, append(settings.HookList(), legacy.active()...))
}

// Untrusted explains ignored configuration and what to do about it; "" when
// everything found is trusted (or nothing was found).
func (p Project) Untrusted() string {
	if p.Trust == trust.None || p.Trust == trust.Trusted {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The repository configuration %s in %s is %s, so it is ignored: none of its hooks or servers run.",
		strings.Join(p.Config.Names(), ", "), p.Config.Repo, p.Trust)
	if len(p.Ignored) > 0 {
		fmt.Fprintf(&b, " It would run: %s.", strings.Join(p.Ignored, "; "))
	}
	if len(p.Loosened) > 0 {
		fmt.Fprintf(&b, " Settings that would widen what agents may do are ignored too: %s (settings that only restrict apply).", strings.Join(p.Loosened, "; "))
	}
	fmt.Fprintf(&b, " If you wrote it or reviewed it, trust it with `autarch trust --root %s` (or approve it when the editor asks).", p.Config.Repo)
	return b.String()
}

// ProjectQuality is the quality gates' configuration in force for the
// project at dir: the guardrails' (resolved with the project's trust, as
// last reloaded), else the repository's configuration read untrusted (its
// gate commands ignored).
func ProjectQuality(g *Guardrails, dir string) (Quality, error) {
	if q, ok := g.Quality(); ok {
		return q, nil
	}
	p, err := LoadProject(dir, nil)
	if err != nil {
		return Quality{}, err
	}
	return p.Quality, nil
}
