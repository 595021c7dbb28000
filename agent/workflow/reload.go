package workflow

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// Reload re-reads the repository configuration after one of its files
// changed. A file that no longer parses changes nothing: the last good
// configuration stays in force and the warning names the line and the key.
// Unknown keys are warnings. The guardrails of a good file (protected
// paths, blocked commands, caps, code rules) replace the running ones at
// once, trusted or not, as they do at open: they can only restrict. Its
// hooks and quality gates replace the running ones when the user trusts
// that exact content; otherwise the hooks stop and the gates run without
// the file's commands, the detected checks instead (changed content runs
// only once approved again). Its other settings take effect when the
// project is next opened.
func (p *Project) Reload() []string {
	now, err := tools.LoadProject(p.Repo.Top(), p.trust)
	if err != nil {
		return []string{fmt.Sprintf("%v: the last good configuration stays in force until the file is fixed", err)}
	}
	p.Guardrails.Replace(now.Guardrails)
	p.Guardrails.SetQuality(now.Quality) // commands only from trusted content
	warnings := now.Warnings
	if now.Trust == trust.Trusted {
		p.Hooks.Enable(now.Hooks)
	} else {
		p.Hooks.Enable(&tools.Hooks{})
		if msg := now.Untrusted(); msg != "" {
			warnings = append(warnings, msg)
		}
	}
	return warnings
}

// isConfigFile reports whether path (absolute) is one of the repository
// configuration files of the project at top (the legacy guardrails file
// too).
func isConfigFile(top, path string) bool {
	rel, err := filepath.Rel(top, path)
	return err == nil && slices.Contains(append(trust.ExecutableFiles(), tools.GuardrailsFile), filepath.ToSlash(rel))
}

// configChanged reloads the open project's configuration when one of
// paths is a configuration file, and tells the user what is wrong with it.
func (s *Service) configChanged(paths []string) {
	s.mu.Lock()
	p := s.project
	s.mu.Unlock()
	if p == nil || !slices.ContainsFunc(paths, func(path string) bool { return isConfigFile(p.Repo.Top(), path) }) {
		return
	}
	warnings := p.Reload()
	for _, w := range warnings {
		s.cfg.Log.Warn("repository configuration", "warning", w)
	}
	if len(warnings) == 0 {
		return
	}
	if err := s.goRun(context.Background(), func(ctx context.Context) {
		for _, w := range warnings {
			s.tell(ctx, editor.Warning, "Autarch: "+w)
		}
	}); err != nil {
		s.cfg.Log.Debug("configuration warnings not shown", "err", err)
	}
}
