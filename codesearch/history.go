package codesearch

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/autarch-dev/autarch/index"
	"github.com/autarch-dev/autarch/workspace/git"
)

// historyDepth is the most commits read when a history starts (the index
// keeps as many of the latest; each file's field takes its newest few).
const historyDepth = 5000

// GitHistory is the index's history source for root when root is in a
// git work tree (hardened git, HEAD's first 5,000 commits, then the new
// ones at each open); nil otherwise.
func GitHistory(ctx context.Context, root string) index.HistorySource {
	repo, err := git.Open(ctx, root, git.Config{})
	if err != nil {
		return nil
	}
	// the index's paths are relative to root, git's to the repository
	prefix := ""
	if top, err := filepath.EvalSymlinks(repo.Top()); err == nil {
		if real, err := filepath.EvalSymlinks(root); err == nil {
			if rel, err := filepath.Rel(top, real); err == nil && rel != "." {
				prefix = filepath.ToSlash(rel) + "/"
			}
		}
	}
	return func(ctx context.Context, since string) ([]index.FileCommit, string, error) {
		cs, head, err := repo.History(ctx, since, historyDepth)
		out := make([]index.FileCommit, 0, len(cs))
		for _, c := range cs {
			fc := index.FileCommit{Hash: c.Hash, Message: c.Message}
			for _, p := range c.Paths {
				if rel, ok := strings.CutPrefix(p, prefix); ok {
					fc.Paths = append(fc.Paths, rel)
				}
			}
			out = append(out, fc)
		}
		return out, head, err
	}
}
