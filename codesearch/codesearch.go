// Package codesearch is the code index of one folder for the lifetime of a
// session (the editor's or a CLI verb's): opened or built in the background
// on first use with progress, kept fresh as files are saved or edited, and
// scoped per pulse worktree by an overlay on the main index. The server and
// the CLI use the same Search.
package codesearch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/index"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/indexsearch"
	"github.com/autarch-dev/autarch/workspace"
	"github.com/autarch-dev/autarch/workspace/git"
)

// ErrNotIndexed says a search found nothing because the folder has no
// index: building it failed or was cancelled.
var ErrNotIndexed = errors.New("the project has not been indexed yet (indexing failed or was cancelled: reindex the workspace)")

// EditDebounce is how long an edited buffer stays quiet before its text is
// indexed.
const EditDebounce = 300 * time.Millisecond

// Config configures a Search.
type Config struct {
	// Root is the folder to index.
	Root string
	// Embed gives a new index its embedder (cmd/autarch picks it); nil
	// keeps the index's default.
	Embed func(ctx context.Context, ix *index.Index) error
	// Editor shows indexing progress and failures (nil: none).
	Editor editor.Client
	// Wait makes searches wait for the index to be built; otherwise a
	// search before then answers from what is indexed so far, saying so.
	Wait bool
	// Log receives notes and failures (slog.Default if nil).
	Log *slog.Logger
}

// Search is the code index of one folder. It implements tools.Searcher.
// Close stops its background work.
type Search struct {
	cfg Config

	mu       sync.Mutex
	ix       *index.Index
	dir      string // the index's state dir
	ready    bool
	building chan struct{} // closed when the current build ends; nil when idle
	timers   map[string]*time.Timer
	scopes   map[string]tools.Searcher
	closed   bool

	bg run.Group // background work, cancelled by Close
}

// New makes the Search of cfg.Root; nothing is read until the first use.
func New(cfg Config) *Search {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Search{cfg: cfg, timers: map[string]*time.Timer{}, scopes: map[string]tools.Searcher{}}
}

// Root is the indexed folder.
func (s *Search) Root() string { return s.cfg.Root }

// Close cancels indexing and pending updates and waits for them to end.
func (s *Search) Close() {
	s.mu.Lock()
	s.closed = true
	for _, t := range s.timers {
		t.Stop()
	}
	s.bg.Cancel()
	s.mu.Unlock()
	s.bg.Drain()
}

// goBackgroundLocked runs fn under Close's control (s.mu held); it
// reports false when the Search is closed.
func (s *Search) goBackgroundLocked(fn func(ctx context.Context)) bool {
	return !s.closed && s.bg.Go(context.Background(), fn) == nil
}

func (s *Search) goBackground(fn func(ctx context.Context)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.goBackgroundLocked(fn)
}

// Search implements tools.Searcher: it starts indexing on first use; while
// the index is being built it answers from what is indexed so far
// (SearchStatus.Partial) unless Config.Wait asks to wait.
func (s *Search) Search(ctx context.Context, req tools.SearchRequest) ([]tools.SearchHit, tools.SearchStatus, error) {
	done := s.ensure(false)
	if s.cfg.Wait {
		select {
		case <-done:
		case <-ctx.Done():
			return nil, tools.SearchStatus{}, ctx.Err()
		}
	}
	s.mu.Lock()
	ix, ready := s.ix, s.ready
	s.mu.Unlock()
	if ix == nil {
		return nil, tools.SearchStatus{}, nil
	}
	return indexsearch.Searcher{Index: ix, Ready: func() bool { return ready }}.Search(ctx, req)
}

// Query waits for the index, then searches it: what a person asking from
// the editor or the terminal expects. It fails with ErrNotIndexed when
// there is no index to answer from.
func (s *Search) Query(ctx context.Context, req tools.SearchRequest) ([]tools.SearchHit, error) {
	if err := s.Wait(ctx); err != nil {
		return nil, err
	}
	hits, st, err := s.Search(ctx, req)
	if err != nil {
		return nil, err
	}
	if !st.Indexed && len(hits) == 0 {
		return nil, ErrNotIndexed
	}
	return hits, nil
}

// Wait starts indexing if needed and waits until it ends or ctx is done
// (the build goes on: another caller may want it).
func (s *Search) Wait(ctx context.Context) error {
	select {
	case <-s.ensure(false):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Reindex rebuilds the index from what changed on disk, in the background.
func (s *Search) Reindex() { s.ensure(true) }

// ensure starts (re)indexing unless it runs or is done (force rebuilds);
// the channel is closed when that indexing ends.
func (s *Search) ensure(force bool) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.building != nil {
		return s.building
	}
	if (s.ready && !force) || s.closed {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	done := make(chan struct{})
	s.building = done
	s.goBackgroundLocked(func(ctx context.Context) {
		defer close(done)
		err := s.build(ctx)
		s.mu.Lock()
		s.building = nil
		s.mu.Unlock()
		if err != nil && ctx.Err() == nil {
			s.cfg.Log.Warn("indexing failed", "root", s.cfg.Root, "err", err)
			if s.cfg.Editor != nil {
				if err := s.cfg.Editor.ShowMessage(ctx, editor.Warning, fmt.Sprintf("Autarch: indexing %s failed: %v", s.cfg.Root, err)); err != nil {
					s.cfg.Log.Debug("message not delivered", "err", err)
				}
			}
		}
	})
	return done
}

// build opens or builds the index, with progress the user can cancel.
func (s *Search) build(ctx context.Context) error {
	s.mu.Lock()
	ix, dir := s.ix, s.dir
	s.mu.Unlock()
	if ix == nil {
		r, err := workspace.Open(s.cfg.Root)
		if err != nil {
			return err
		}
		if dir, err = index.Location(r.Dir()); err != nil {
			return err
		}
		ix = index.New(r)
		ix.SetHistorySource(GitHistory(ctx, r.Dir()))
		if s.cfg.Embed != nil {
			if err := s.cfg.Embed(ctx, ix); err != nil {
				return fmt.Errorf("embedder: %w", err)
			}
		}
		s.mu.Lock()
		s.ix, s.dir = ix, dir // searchable while it builds (partial results)
		s.mu.Unlock()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var p editor.Progress
	if s.cfg.Editor != nil {
		var err error
		if p, err = s.cfg.Editor.StartProgress(ctx, "Autarch: indexing "+s.cfg.Root, true); err != nil {
			return err
		}
		stopped := make(chan struct{})
		defer close(stopped)
		go func() {
			select {
			case <-p.Cancelled():
				cancel()
			case <-stopped:
			}
		}()
	}
	report := func(done, total int) {
		if p == nil {
			return
		}
		pct := -1
		if total > 0 {
			pct = done * 100 / total
		}
		p.Report(ctx, fmt.Sprintf("%d/%d files", done, total), pct)
	}
	err := index.Open(ctx, ix, dir, report, func(msg string) { s.cfg.Log.Info("index", "root", s.cfg.Root, "note", msg) })
	end := "indexed"
	if err != nil {
		end = "indexing stopped: " + err.Error()
	} else {
		s.mu.Lock()
		s.ready = true
		s.mu.Unlock()
	}
	if p != nil {
		if perr := p.End(context.WithoutCancel(ctx), end); perr != nil && err == nil {
			s.cfg.Log.Debug("progress end not delivered", "err", perr)
		}
	}
	return err
}

// rels are the paths of abs inside the root, slash-separated; paths
// outside it are left out.
func (s *Search) rels(abs []string) []string {
	var out []string
	for _, p := range abs {
		rel, err := filepath.Rel(s.cfg.Root, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			continue
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// readyIndex is the index once built (updates before then are read by the
// build itself).
func (s *Search) readyIndex() (*index.Index, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ready {
		return nil, ""
	}
	return s.ix, s.dir
}

// Changed re-indexes files of the folder from disk (saved, created, changed
// or deleted; absolute paths), in the background.
func (s *Search) Changed(paths ...string) {
	ix, dir := s.readyIndex()
	rels := s.rels(paths)
	if ix == nil || len(rels) == 0 {
		return
	}
	s.goBackground(func(ctx context.Context) {
		err := ix.Update(ctx, rels...)
		if err == nil {
			err = ix.Save(dir)
		}
		if err != nil && ctx.Err() == nil {
			s.cfg.Log.Warn("index update", "err", err)
		}
	})
}

// Edited indexes an edited buffer's text (absolute path) once it has been
// quiet for EditDebounce, so search sees unsaved work.
func (s *Search) Edited(path, text string) {
	ix, _ := s.readyIndex()
	rels := s.rels([]string{path})
	if ix == nil || len(rels) != 1 {
		return
	}
	rel := rels[0]
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if t := s.timers[rel]; t != nil {
		t.Stop()
	}
	s.timers[rel] = time.AfterFunc(EditDebounce, func() {
		s.mu.Lock()
		delete(s.timers, rel)
		s.mu.Unlock()
		s.goBackground(func(ctx context.Context) {
			ix.AddContent(ctx, rel, []byte(text))
		})
	})
}

// Scopes is the search of a directory: this Search for the folder itself;
// for a pulse worktree of repo, this index for the files it shares with the
// folder overlaid with a small index of the files that differ.
func (s *Search) Scopes(repo *git.Repo) func(dir string) tools.Searcher {
	return func(dir string) tools.Searcher {
		if dir == s.cfg.Root {
			return s
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		sc := s.scopes[dir]
		if sc == nil {
			sc = &worktree{main: s, dir: dir, changed: indexsearch.WorktreeChanges(repo, dir)}
			s.scopes[dir] = sc
		}
		return sc
	}
}

// worktree is a pulse worktree's search over the main index.
type worktree struct {
	main    *Search
	dir     string
	changed func(ctx context.Context) ([]string, error)

	mu      sync.Mutex
	overlay *indexsearch.Overlay
}

func (w *worktree) Search(ctx context.Context, req tools.SearchRequest) ([]tools.SearchHit, tools.SearchStatus, error) {
	done := w.main.ensure(false)
	if w.main.cfg.Wait {
		select {
		case <-done:
		case <-ctx.Done():
			return nil, tools.SearchStatus{}, ctx.Err()
		}
	}
	ix, _ := w.main.readyIndex()
	if ix == nil {
		return nil, tools.SearchStatus{}, nil
	}
	w.mu.Lock()
	if w.overlay == nil {
		r, err := workspace.Open(w.dir)
		if err != nil {
			w.mu.Unlock()
			return nil, tools.SearchStatus{}, err
		}
		w.overlay = &indexsearch.Overlay{Main: ix, Root: r, Changed: w.changed}
	}
	o := w.overlay
	w.mu.Unlock()
	return o.Search(ctx, req)
}
