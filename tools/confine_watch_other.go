//go:build !linux

package tools

// treeWatch follows a tree's changes between mask decisions where inotify
// exists (confine_watch_linux.go); elsewhere every decision walks.
type treeWatch struct{ lost bool }

// treeChanges is what changed in a watched tree.
type treeChanges struct {
	paths             map[string]bool
	newDirs           []string
	created, unlinked map[string]bool
}

func newTreeWatch(string) *treeWatch              { return nil }
func (w *treeWatch) add(string)                   {}
func (w *treeWatch) close()                       {}
func (w *treeWatch) full() bool                   { return false }
func (w *treeWatch) changes() (treeChanges, bool) { return treeChanges{}, false }
func (w *treeWatch) relinked() bool               { return false }
