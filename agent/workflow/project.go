package workflow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// Project is what an engine needs of a repository: the repository, its
// workflow store, and the team's hooks and guardrails. Configuration is
// read from the user's checkout (never from a workflow's worktree, so an
// agent's edits there cannot take effect for its own workflow), and hooks
// run only when the user trusts that exact configuration.
type Project struct {
	Repo       *git.Repo
	Store      *store.Store
	Hooks      *tools.Hooks
	Guardrails *tools.Guardrails
	// Config is the repository configuration and whether it is trusted.
	Config tools.Project
	// Egress is the repository's secret filter: the store writes
	// through it.
	Egress *tools.Egress

	trust *trust.Store
	// dryRun is the temporary state directory of a dry-run project
	// (OpenDryRun), removed by Close; "" otherwise.
	dryRun string
}

// OpenProject opens the git repository at dir, its workflow store and its
// hooks and guardrails. trusted is the user's trust store (nil: the
// default one). Close releases the store.
func OpenProject(ctx context.Context, dir string, trusted *trust.Store) (*Project, error) {
	return openProject(ctx, dir, trusted, "")
}

// openProject opens a project whose store is in the repository's state
// directory, or in dryDir when set.
func openProject(ctx context.Context, dir string, trusted *trust.Store, dryDir string) (*Project, error) {
	repo, err := git.Open(ctx, dir, git.Config{})
	if err != nil {
		return nil, fmt.Errorf("workflows need a git repository (%s): %w", dir, err)
	}
	if trusted == nil {
		if trusted, err = trust.Open(); err != nil {
			return nil, err
		}
	}
	cfg, err := tools.LoadProject(repo.Top(), trusted)
	if err != nil {
		return nil, err
	}
	egress := tools.NewEgress(ctx, nil, tools.DefaultEgressSources(repo.Top(), repo.CommonDir()))
	var st *store.Store
	if dryDir != "" {
		st, err = dryRunStore(ctx, dryDir, egress)
	} else {
		st, err = store.Open(ctx, store.Path(repo.StateDir()), store.Options{Redact: egress})
	}
	if err != nil {
		return nil, err
	}
	return &Project{Repo: repo, Store: st, Hooks: cfg.Hooks, Guardrails: cfg.Guardrails, Config: cfg, Egress: egress, trust: trusted}, nil
}

// Trust records the user's trust in the configuration the project was
// opened with and enables its hooks and quality gate commands for the
// running engine. A file that
// changed since it was shown is not trusted: the user is asked again.
func (p *Project) Trust() error {
	now, err := tools.LoadProject(p.Repo.Top(), nil)
	if err != nil {
		return err
	}
	if now.Config.Digest() != p.Config.Config.Digest() {
		return fmt.Errorf("the configuration changed since it was shown (%s): review it again", strings.Join(now.Config.Names(), ", "))
	}
	if err := p.trust.Trust(now.Config); err != nil {
		return err
	}
	hooks, err := tools.HooksOf(now.Config)
	if err != nil {
		return err
	}
	p.Hooks.Enable(hooks)
	p.Config.Trust, p.Config.Ignored = trust.Trusted, nil
	trusted, err := tools.LoadProject(p.Repo.Top(), p.trust)
	if err != nil {
		return err
	}
	if trusted.Trust == trust.Trusted { // not if the file changed meanwhile
		p.Guardrails.SetQuality(trusted.Quality)
	}
	return nil
}

// Close releases the store (and removes a dry run's state).
func (p *Project) Close() error {
	err := p.Store.Close()
	if p.dryRun != "" {
		err = errors.Join(err, os.RemoveAll(p.dryRun))
	}
	return err
}

// Engine makes an engine over the project (cfg's Store, Repo, Hooks and
// Guardrails are the project's; the quality gates, unless cfg.Quality sets
// them, are the guardrails', so a reload reaches the running engine) and
// recovers what a killed process left.
func (p *Project) Engine(ctx context.Context, cfg Config) (*Engine, error) {
	cfg.Store, cfg.Repo, cfg.Hooks, cfg.Guardrails, cfg.Repository = p.Store, p.Repo, p.Hooks, p.Guardrails, p.Config.Settings
	if cfg.Egress == nil {
		cfg.Egress = p.Egress
	}
	if p.dryRun != "" {
		cfg.DryRun, cfg.StateDir = true, p.dryRun
	}
	e, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if err := e.Recover(ctx); err != nil {
		return e, fmt.Errorf("recover interrupted work: %w", err)
	}
	return e, nil
}
