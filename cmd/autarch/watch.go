package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/autarch-dev/autarch/index"
	"github.com/autarch-dev/autarch/workspace"
)

// watcher keeps an index fresh from file system events: changed paths
// (minus ignored ones) are collected for a debounce interval, then applied
// with Update and saved.
type watcher struct {
	root     *workspace.Root
	ignore   *workspace.Ignore
	ix       *index.Index
	dir      string // the index's state dir
	debounce time.Duration
	// applied is told what each batch changed (for the progress line, tests).
	applied func(rels []string, took time.Duration)
}

// run watches until ctx ends.
func (w *watcher) run(ctx context.Context) error {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer fw.Close()
	if err := w.addTree(ctx, fw, "."); err != nil {
		return err
	}
	pending := map[string]bool{}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-fw.Errors:
			return fmt.Errorf("watch: %w", err)
		case ev := <-fw.Events:
			rel, ok := w.rel(ev.Name)
			if !ok {
				continue
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
					if w.ignore.Match(rel, true) {
						continue
					}
					if err := w.addTree(ctx, fw, rel); err != nil {
						return err
					}
					w.walkFiles(ctx, rel, pending) // files created with the directory
					timer.Reset(w.debounce)
					continue
				}
			}
			if w.ignore.Match(rel, false) {
				continue
			}
			pending[rel] = true
			timer.Reset(w.debounce)
		case <-timer.C:
			rels := make([]string, 0, len(pending))
			for r := range pending {
				rels = append(rels, r)
			}
			clear(pending)
			slices.Sort(rels)
			start := time.Now()
			if err := w.ix.Update(ctx, rels...); err != nil {
				return fmt.Errorf("update the index: %w", err)
			}
			if err := w.ix.Save(w.dir); err != nil {
				return fmt.Errorf("save the index: %w", err)
			}
			if w.applied != nil {
				w.applied(rels, time.Since(start))
			}
		}
	}
}

// rel is an event path relative to the root; false for paths outside it.
func (w *watcher) rel(name string) (string, bool) {
	rel, err := filepath.Rel(w.root.Dir(), name)
	if err != nil || rel == "." || rel == ".." || len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// addTree watches a directory and its subdirectories, minus ignored ones.
func (w *watcher) addTree(ctx context.Context, fw *fsnotify.Watcher, start string) error {
	return filepath.WalkDir(filepath.Join(w.root.Dir(), start), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while we looked
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if rel, ok := w.rel(p); ok && w.ignore.Match(rel, true) {
			return filepath.SkipDir
		}
		if err := fw.Add(p); err != nil {
			return fmt.Errorf("watch %s: %w", p, err)
		}
		return ctx.Err()
	})
}

// walkFiles marks the files of a new directory as changed.
func (w *watcher) walkFiles(ctx context.Context, start string, pending map[string]bool) {
	w.ignore.Walk(ctx, start, func(rel string, d fs.DirEntry) error {
		if !d.IsDir() {
			pending[rel] = true
		}
		return nil
	})
}
