package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DefaultCaches returns the shared caches of the toolchains installed
// here: the Go module and build caches (go env GOMODCACHE, GOCACHE) and
// the npm, pip, yarn and cargo caches that exist.
func (b *Bwrap) DefaultCaches() []string {
	var out []string
	if v, ok := lookupEnv(b.goEnv, "GOMODCACHE"); ok {
		out = append(out, v)
	}
	if b.goCache != "" {
		out = append(out, b.goCache)
	}
	if b.home == "" {
		return out
	}
	for _, c := range []string{".npm", ".cache/pip", ".cache/yarn", ".cargo/registry", ".cargo/git"} {
		if p := filepath.Join(b.home, c); isDir(p) {
			out = append(out, p)
		}
	}
	return out
}

// RepoPaths returns the Writable and ReadOnly paths of a Spec whose Dir is
// dir, so that git works inside while nothing can change how git behaves
// outside (configuration, hooks, which repository the worktree belongs
// to):
//
//   - dir without .git (a plain workspace): .autarch read-only.
//   - a normal repository (dir/.git is a directory): .git and .autarch
//     read-only; git can read but not commit.
//   - a linked worktree (dir/.git is a "gitdir: …" file): the worktree's
//     own gitdir (<common>/worktrees/<name>) and the common dir's objects,
//     refs and logs writable, so that git add and git commit work; the
//     common dir (config, hooks, info, packed-refs), dir/.git and the
//     gitdir's commondir, gitdir and config.worktree files read-only.
//     commonDir is the repository's git directory as the caller knows it,
//     never as the worktree (which the command can write) says it is: the
//     gitdir named by dir/.git must lie in commonDir/worktrees.
//
// It creates <common>/logs when missing (git writes branch reflogs there).
func RepoPaths(dir, commonDir string) (writable, readOnly []string, err error) {
	if !filepath.IsAbs(dir) {
		return nil, nil, fmt.Errorf("sandbox: directory %q is not absolute", dir)
	}
	dir = filepath.Clean(dir)
	readOnly = []string{filepath.Join(dir, ".autarch")}
	dotGit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotGit)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, readOnly, nil
	case err != nil:
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	case fi.IsDir():
		return nil, append(readOnly, dotGit), nil
	case !fi.Mode().IsRegular():
		return nil, nil, fmt.Errorf("sandbox: %s is neither a directory nor a gitdir file", dotGit)
	}
	if commonDir == "" || !filepath.IsAbs(commonDir) {
		return nil, nil, fmt.Errorf("sandbox: %s is a linked worktree: the repository's absolute git directory is needed", dir)
	}
	common, err := filepath.EvalSymlinks(commonDir)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: git directory: %w", err)
	}
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	gd, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	gd = strings.TrimSpace(gd)
	if !ok || gd == "" {
		return nil, nil, fmt.Errorf("sandbox: %s does not name a gitdir", dotGit)
	}
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(dir, gd)
	}
	wt, err := filepath.EvalSymlinks(gd)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: worktree gitdir: %w", err)
	}
	if filepath.Dir(wt) != filepath.Join(common, "worktrees") {
		return nil, nil, fmt.Errorf("sandbox: worktree gitdir %s is not in %s", wt, filepath.Join(common, "worktrees"))
	}
	if err := os.MkdirAll(filepath.Join(common, "logs"), 0o755); err != nil {
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	writable = []string{wt, filepath.Join(common, "objects"), filepath.Join(common, "refs"), filepath.Join(common, "logs")}
	readOnly = append(readOnly, dotGit, common,
		filepath.Join(wt, "commondir"), filepath.Join(wt, "gitdir"), filepath.Join(wt, "config.worktree"))
	return writable, readOnly, nil
}
