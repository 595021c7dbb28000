package indexsearch

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/autarch-dev/autarch/index"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace"
	"github.com/autarch-dev/autarch/workspace/git"
)

// Overlay serves the search of a pulse worktree from the main index for the
// files the worktree shares with it, and from a small index of the files
// that differ, so a worktree costs what its diff costs, not what the
// repository does.
type Overlay struct {
	// Main is the index of the user's folder.
	Main *index.Index
	// Root is the worktree.
	Root *workspace.Root
	// Changed lists the worktree's paths whose content may differ from what
	// Main indexed (changed, added or deleted).
	Changed func(ctx context.Context) ([]string, error)

	mu    sync.Mutex
	small *index.Index
	held  map[string]bool // paths the small index answers for
}

// Search implements tools.Searcher.
func (o *Overlay) Search(ctx context.Context, req tools.SearchRequest) ([]tools.SearchHit, tools.SearchStatus, error) {
	changed, err := o.Changed(ctx)
	if err != nil {
		return nil, tools.SearchStatus{}, err
	}
	small, err := o.refresh(ctx, changed)
	if err != nil {
		return nil, tools.SearchStatus{}, err
	}
	mainHits, status, err := Searcher{Index: o.Main}.Search(ctx, tools.SearchRequest{Query: req.Query, Weights: req.Weights, MaxResults: req.MaxResults + len(changed)})
	if err != nil || !status.Indexed {
		return nil, status, err
	}
	smallHits, _, err := Searcher{Index: small, Ready: func() bool { return true }}.Search(ctx, req)
	if err != nil {
		return nil, status, err
	}
	o.mu.Lock()
	held := o.held
	o.mu.Unlock()
	hits := slices.DeleteFunc(mainHits, func(h tools.SearchHit) bool { return held[h.FilePath] })
	hits = append(hits, smallHits...)
	slices.SortStableFunc(hits, func(a, b tools.SearchHit) int { return cmp.Compare(b.AdjustedScore, a.AdjustedScore) })
	if len(hits) > req.MaxResults {
		hits = hits[:req.MaxResults]
	}
	return hits, status, nil
}

// refresh brings the small index to the worktree's changed files: new ones
// are read, unchanged ones kept (by content hash), reverted ones dropped.
func (o *Overlay) refresh(ctx context.Context, changed []string) (*index.Index, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.small == nil {
		o.small, o.held = index.New(o.Root), map[string]bool{}
	}
	now := map[string]bool{}
	for _, p := range changed {
		now[p] = true
	}
	for p := range o.held {
		if !now[p] {
			o.small.Remove(p)
		}
	}
	if err := o.small.Update(ctx, changed...); err != nil {
		return nil, err
	}
	o.held = now
	return o.small, nil
}

// WorktreeChanges is Overlay.Changed for a worktree dir of repo whose main
// index covers the user's folder: the files the worktree changed against
// the user's HEAD, and those the user changed locally (which the main index
// holds in the user's version).
func WorktreeChanges(repo *git.Repo, dir string) func(ctx context.Context) ([]string, error) {
	return func(ctx context.Context) ([]string, error) {
		theirs, err := repo.ChangedPaths(ctx, dir, "HEAD")
		if err != nil {
			return nil, err
		}
		mine, err := repo.ChangedPaths(ctx, repo.Top(), "HEAD")
		if err != nil {
			return nil, err
		}
		all := append(theirs, mine...)
		slices.Sort(all)
		return slices.Compact(all), nil
	}
}
