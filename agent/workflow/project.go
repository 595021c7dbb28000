package workflow

import (
	"context"
	"fmt"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

// Project is what an engine needs of a repository: the repository, its
// workflow store, and the team's hooks and guardrails.
type Project struct {
	Repo       *git.Repo
	Store      *store.Store
	Hooks      *tools.Hooks
	Guardrails *tools.Guardrails
}

// OpenProject opens the git repository at dir, its workflow store and its
// hooks and guardrails. Close releases the store.
func OpenProject(ctx context.Context, dir string) (*Project, error) {
	repo, err := git.Open(ctx, dir, git.Config{})
	if err != nil {
		return nil, fmt.Errorf("workflows need a git repository (%s): %w", dir, err)
	}
	hooks, err := tools.LoadHooks(repo.Top())
	if err != nil {
		return nil, err
	}
	guard, err := tools.LoadGuardrails(repo.Top())
	if err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, store.Path(repo.StateDir()), store.Options{})
	if err != nil {
		return nil, err
	}
	return &Project{Repo: repo, Store: st, Hooks: hooks, Guardrails: guard}, nil
}

// Close releases the store.
func (p *Project) Close() error { return p.Store.Close() }

// Engine makes an engine over the project (cfg's Store, Repo, Hooks and
// Guardrails are the project's) and recovers what a killed process left.
func (p *Project) Engine(ctx context.Context, cfg Config) (*Engine, error) {
	cfg.Store, cfg.Repo, cfg.Hooks, cfg.Guardrails = p.Store, p.Repo, p.Hooks, p.Guardrails
	e, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if err := e.Recover(ctx); err != nil {
		return e, fmt.Errorf("recover interrupted work: %w", err)
	}
	return e, nil
}
