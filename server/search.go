package server

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/index"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/indexsearch"
	"github.com/autarch-dev/autarch/workspace"
)

// codeSearch is the code index of one folder, built in the background
// with progress the first time it is needed; searches before it is ready
// answer "not indexed yet" instead of waiting.
type codeSearch struct {
	s    *Server
	root string

	mu       sync.Mutex
	ix       *index.Index
	building bool
	ready    atomic.Bool
	done     chan struct{}
	scopes   map[string]*codeSearch // other directories (pulse worktrees)
}

func newCodeSearch(s *Server, root string) *codeSearch {
	return &codeSearch{s: s, root: root, scopes: map[string]*codeSearch{}}
}

// scope is the search of a directory: this index for the folder itself,
// a separate index for a worktree.
func (c *codeSearch) scope(dir string) tools.Searcher {
	if dir == c.root {
		return c
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	sc := c.scopes[dir]
	if sc == nil {
		sc = newCodeSearch(c.s, dir)
		c.scopes[dir] = sc
	}
	return sc
}

// Search implements tools.Searcher.
func (c *codeSearch) Search(ctx context.Context, req tools.SearchRequest) ([]tools.SearchHit, tools.SearchStatus, error) {
	c.ensure(ctx, false)
	if !c.ready.Load() {
		return nil, tools.SearchStatus{}, nil
	}
	return indexsearch.Searcher{Index: c.ix, Ready: c.ready.Load}.Search(ctx, req)
}

// ensure starts (re)indexing in the background unless it runs or is done;
// force rebuilds from what changed on disk. It returns a channel closed
// when this indexing ends.
func (c *codeSearch) ensure(ctx context.Context, force bool) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.building || (c.ready.Load() && !force) {
		if c.done == nil {
			ch := make(chan struct{})
			close(ch)
			return ch
		}
		return c.done
	}
	c.building = true
	c.done = make(chan struct{})
	go c.build(context.WithoutCancel(ctx), c.done)
	return c.done
}

func (c *codeSearch) build(ctx context.Context, done chan struct{}) {
	defer close(done)
	err := c.index(ctx)
	c.mu.Lock()
	c.building = false
	c.mu.Unlock()
	if err != nil {
		c.s.log.Warn("indexing failed", "root", c.root, "err", err)
		c.s.Client().ShowMessage(ctx, editor.Warning, fmt.Sprintf("Autarch: indexing %s failed: %v", c.root, err))
	}
}

func (c *codeSearch) index(ctx context.Context) error {
	r, err := workspace.Open(c.root)
	if err != nil {
		return err
	}
	dir, err := index.StateDir(r.Dir())
	if err != nil {
		return err
	}
	ix := index.New(r)
	p, err := c.s.Client().StartProgress(ctx, "Autarch: indexing "+c.root, true)
	if err != nil {
		return err
	}
	ictx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-p.Cancelled():
			cancel()
		case <-ictx.Done():
		}
	}()
	report := func(done, total int) {
		pct := -1
		if total > 0 {
			pct = done * 100 / total
		}
		p.Report(ictx, fmt.Sprintf("%d/%d files", done, total), pct)
	}
	err = index.Open(ictx, ix, dir, report, func(msg string) { c.s.log.Info("index", "root", c.root, "note", msg) })
	if err != nil {
		p.End(ctx, "indexing stopped: "+err.Error())
		return err
	}
	c.mu.Lock()
	c.ix = ix
	c.mu.Unlock()
	c.ready.Store(true)
	return p.End(ctx, "indexed")
}
