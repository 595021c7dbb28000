package git

import (
	"path/filepath"
	"slices"
)

// noNewGitlinks reports, from the index file of the work tree at dir,
// that its gitlink entries (mode 160000) are all among kept — the
// repository's own submodules, which base has as gitlinks — so that a
// diff of the index against base can find no gitlink base does not have
// (issue 35: that diff was a git process reading a 23k-entry index after
// every checkpoint's staging). False when the index holds another
// gitlink or cannot be read here (split, sparse): then git is asked.
func (r *Repo) noNewGitlinks(dir string, kept []string) bool {
	loc, err := r.git.locate(dir)
	if err != nil || loc.gitDir == "" {
		return false
	}
	d, ok := r.indexDigest(filepath.Join(loc.gitDir, "index"))
	return ok && !slices.ContainsFunc(d.gitlinks, func(l string) bool { return !slices.Contains(kept, l) })
}
