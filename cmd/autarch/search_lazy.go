package main

import (
	"context"
	"sync"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/indexsearch"
)

// lazySearcher opens (or builds) the workspace's index on the first
// semantic_search, so commands that never search pay nothing.
type lazySearcher struct {
	root string
	io   stdio
	once sync.Once
	s    tools.Searcher
	err  error
}

func (l *lazySearcher) Search(ctx context.Context, req tools.SearchRequest) ([]tools.SearchHit, tools.SearchStatus, error) {
	l.once.Do(func() {
		ix, _, err := openIndex(ctx, l.io, l.root, true)
		if err != nil {
			l.err = err
			return
		}
		l.s = indexsearch.Searcher{Index: ix, Ready: func() bool { return true }}
	})
	if l.err != nil {
		return nil, tools.SearchStatus{}, l.err
	}
	return l.s.Search(ctx, req)
}
