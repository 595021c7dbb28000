package main

import (
	"context"
	"sync"

	"github.com/autarch-dev/autarch/index"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/indexsearch"
	"github.com/autarch-dev/autarch/workspace"
	"github.com/autarch-dev/autarch/workspace/git"
)

// lazySearcher opens (or builds) the workspace's index on the first
// semantic_search, so commands that never search pay nothing.
type lazySearcher struct {
	root string
	io   stdio
	once sync.Once
	ix   *index.Index
	err  error
}

// index opens the index once.
func (l *lazySearcher) index(ctx context.Context) (*index.Index, error) {
	l.once.Do(func() { l.ix, _, l.err = openIndex(ctx, l.io, l.root, true) })
	return l.ix, l.err
}

func (l *lazySearcher) Search(ctx context.Context, req tools.SearchRequest) ([]tools.SearchHit, tools.SearchStatus, error) {
	ix, err := l.index(ctx)
	if err != nil {
		return nil, tools.SearchStatus{}, err
	}
	return indexsearch.Searcher{Index: ix, Ready: func() bool { return true }}.Search(ctx, req)
}

// worktreeSearcher is a pulse worktree's search: the main index for the
// files it shares with the user's folder, overlaid with the files that
// differ.
type worktreeSearcher struct {
	main *lazySearcher
	repo *git.Repo
	dir  string
	once sync.Once
	o    *indexsearch.Overlay
	err  error
}

func (w *worktreeSearcher) Search(ctx context.Context, req tools.SearchRequest) ([]tools.SearchHit, tools.SearchStatus, error) {
	w.once.Do(func() {
		ix, err := w.main.index(ctx)
		if err != nil {
			w.err = err
			return
		}
		r, err := workspace.Open(w.dir)
		if err != nil {
			w.err = err
			return
		}
		w.o = &indexsearch.Overlay{Main: ix, Root: r, Changed: indexsearch.WorktreeChanges(w.repo, w.dir)}
	})
	if w.err != nil {
		return nil, tools.SearchStatus{}, w.err
	}
	return w.o.Search(ctx, req)
}

// searchScopes gives the user's folder its lazily opened index and each
// worktree an overlay on it.
func searchScopes(io stdio, repo *git.Repo) func(dir string) tools.Searcher {
	main := &lazySearcher{root: repo.Top(), io: io}
	var mu sync.Mutex
	scopes := map[string]tools.Searcher{}
	return func(dir string) tools.Searcher {
		if dir == repo.Top() {
			return main
		}
		mu.Lock()
		defer mu.Unlock()
		if scopes[dir] == nil {
			scopes[dir] = &worktreeSearcher{main: main, repo: repo, dir: dir}
		}
		return scopes[dir]
	}
}
