package server

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/index"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/indexsearch"
	"github.com/autarch-dev/autarch/workspace"
	"github.com/autarch-dev/autarch/workspace/git"
)

// codeSearch is the code index of one folder, built in the background
// with progress the first time it is needed; searches before it is ready
// answer "not indexed yet" instead of waiting.
type codeSearch struct {
	s    *Server
	root string

	mu       sync.Mutex
	ix       *index.Index
	dir      string                 // the index's state dir
	timers   map[string]*time.Timer // debounced buffer updates by path
	building bool
	ready    atomic.Bool
	done     chan struct{}
	scopes   map[string]tools.Searcher // pulse worktrees
}

func newCodeSearch(s *Server, root string) *codeSearch {
	return &codeSearch{s: s, root: root, scopes: map[string]tools.Searcher{}, timers: map[string]*time.Timer{}}
}

// scope is the search of a directory: this index for the folder itself;
// for a pulse worktree, this index for the files it shares with the folder
// overlaid with a small index of the files that differ.
func (c *codeSearch) scope(repo *git.Repo) func(dir string) tools.Searcher {
	return func(dir string) tools.Searcher {
		if dir == c.root {
			return c
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		sc := c.scopes[dir]
		if sc == nil {
			sc = &worktreeSearch{main: c, dir: dir, changed: indexsearch.WorktreeChanges(repo, dir)}
			c.scopes[dir] = sc
		}
		return sc
	}
}

// worktreeSearch is a worktree's search over the main index (built first
// when needed).
type worktreeSearch struct {
	main    *codeSearch
	dir     string
	changed func(ctx context.Context) ([]string, error)

	mu      sync.Mutex
	overlay *indexsearch.Overlay
}

func (w *worktreeSearch) Search(ctx context.Context, req tools.SearchRequest) ([]tools.SearchHit, tools.SearchStatus, error) {
	w.main.ensure(ctx, false)
	if !w.main.ready.Load() {
		return nil, tools.SearchStatus{}, nil
	}
	w.mu.Lock()
	if w.overlay == nil {
		r, err := workspace.Open(w.dir)
		if err != nil {
			w.mu.Unlock()
			return nil, tools.SearchStatus{}, err
		}
		w.main.mu.Lock()
		w.overlay = &indexsearch.Overlay{Main: w.main.ix, Root: r, Changed: w.changed}
		w.main.mu.Unlock()
	}
	o := w.overlay
	w.mu.Unlock()
	return o.Search(ctx, req)
}

// Search implements tools.Searcher. While the index is being built it
// answers from what is indexed so far, saying so (SearchStatus.Partial).
func (c *codeSearch) Search(ctx context.Context, req tools.SearchRequest) ([]tools.SearchHit, tools.SearchStatus, error) {
	c.ensure(ctx, false)
	c.mu.Lock()
	ix := c.ix
	c.mu.Unlock()
	if ix == nil {
		return nil, tools.SearchStatus{}, nil
	}
	return indexsearch.Searcher{Index: ix, Ready: c.ready.Load}.Search(ctx, req)
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
	dir, err := index.Location(r.Dir())
	if err != nil {
		return err
	}
	ix := index.New(r)
	if _, err := openai.UseEmbedderFromEnv(ctx, ix, c.s.cfg.Getenv); err != nil {
		return err
	}
	c.mu.Lock()
	if c.ix == nil {
		c.ix, c.dir = ix, dir // searchable while it builds (partial results)
	} else {
		ix = c.ix // a reindex refreshes the index in place
	}
	c.mu.Unlock()
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
	c.ix, c.dir = ix, dir
	c.mu.Unlock()
	c.ready.Store(true)
	return p.End(ctx, "indexed")
}

// bufferDebounce is how long an edited buffer stays quiet before its text
// is indexed.
const bufferDebounce = 300 * time.Millisecond

// filesChanged re-indexes files of the workspace from disk (saved, created,
// changed or deleted), in the background.
func (w *workbench) filesChanged(uris ...string) {
	c, rels := w.searchFor(uris)
	if c == nil || len(rels) == 0 {
		return
	}
	go func() {
		if err := c.update(w.lifetime(), rels); err != nil {
			w.s.log.Warn("index update", "err", err)
		}
	}()
}

// bufferChanged indexes an edited buffer's text once it has been quiet for
// bufferDebounce, so search sees unsaved work.
func (w *workbench) bufferChanged(uri, text string) {
	c, rels := w.searchFor([]string{uri})
	if c == nil || len(rels) != 1 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.timers[rels[0]]; t != nil {
		t.Stop()
	}
	c.timers[rels[0]] = time.AfterFunc(bufferDebounce, func() {
		c.mu.Lock()
		delete(c.timers, rels[0])
		ix := c.ix
		c.mu.Unlock()
		if ix != nil {
			ix.AddContent(w.lifetime(), rels[0], []byte(text))
		}
	})
}

// searchFor is the ready index of the workspace and the paths of uris
// inside it; nil before the index is built (the build reads the disk).
func (w *workbench) searchFor(uris []string) (*codeSearch, []string) {
	w.searchMu.Lock()
	c := w.search
	w.searchMu.Unlock()
	if c == nil || !c.ready.Load() {
		return nil, nil
	}
	var rels []string
	for _, u := range uris {
		p, ok := uriPath(u)
		if !ok {
			continue
		}
		rel, err := filepath.Rel(c.root, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		rels = append(rels, filepath.ToSlash(rel))
	}
	return c, rels
}

// update re-indexes files and saves the index.
func (c *codeSearch) update(ctx context.Context, rels []string) error {
	c.mu.Lock()
	ix, dir := c.ix, c.dir
	c.mu.Unlock()
	if ix == nil {
		return nil
	}
	if err := ix.Update(ctx, rels...); err != nil {
		return err
	}
	return ix.Save(dir)
}
