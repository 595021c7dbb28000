package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
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

// RepoConfinement is what a command in a directory may see of its
// repository and of Autarch's state: paths for Spec.ReadOnly and
// Spec.Masked. Nothing of the repository is writable but the work tree:
// commits are Autarch's, made on the host at the end of a pulse or by
// commit_changes.
type RepoConfinement struct {
	ReadOnly []string
	Masked   []string
}

// RepoPaths returns the confinement of a command whose Spec.Dir is dir, so
// that git can read the repository inside while nothing the command does
// changes the user's repository (refs, objects, packed-refs, reflogs,
// configuration, hooks, which repository a worktree belongs to) or what
// Autarch later reads from the worktree's own gitdir (HEAD, index,
// recorded artifacts), and so that Autarch's state is invisible:
//
//   - dir without .git (a plain workspace): .autarch read-only.
//   - a normal repository (dir/.git is a directory): .git and .autarch
//     read-only; .git/autarch (Autarch's store, swarm credentials, other
//     workflows' worktrees) masked.
//   - a linked worktree (dir/.git is a "gitdir: …" file): dir/.git,
//     .autarch and the whole common dir read-only, the worktree's own
//     gitdir (<common>/worktrees/<name>) with it; <common>/autarch masked
//     (dir itself may live under <common>/autarch/worktrees: as the deeper
//     path it stays visible and writable). commonDir is the repository's
//     git directory as the caller knows it, never as the worktree (which
//     the command can write) says it is: the gitdir named by dir/.git must
//     lie in commonDir/worktrees.
//
// It creates the state directory (<git dir>/autarch) when missing, so that
// what Autarch puts there later while a command runs is masked too. The
// user's own Autarch configuration and cache directories are masked in
// every case (UserStateDirs).
func RepoPaths(dir, commonDir string) (RepoConfinement, error) {
	if !filepath.IsAbs(dir) {
		return RepoConfinement{}, fmt.Errorf("sandbox: directory %q is not absolute", dir)
	}
	dir = filepath.Clean(dir)
	c := RepoConfinement{ReadOnly: []string{filepath.Join(dir, ".autarch")}, Masked: UserStateDirs()}
	dotGit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotGit)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return c, nil
	case err != nil:
		return RepoConfinement{}, fmt.Errorf("sandbox: %w", err)
	case fi.IsDir():
		state, err := stateDir(dotGit)
		if err != nil {
			return RepoConfinement{}, err
		}
		c.ReadOnly = append(c.ReadOnly, dotGit)
		c.Masked = append(c.Masked, state)
		return c, nil
	case !fi.Mode().IsRegular():
		return RepoConfinement{}, fmt.Errorf("sandbox: %s is neither a directory nor a gitdir file", dotGit)
	}
	if commonDir == "" || !filepath.IsAbs(commonDir) {
		return RepoConfinement{}, fmt.Errorf("sandbox: %s is a linked worktree: the repository's absolute git directory is needed", dir)
	}
	common, err := filepath.EvalSymlinks(commonDir)
	if err != nil {
		return RepoConfinement{}, fmt.Errorf("sandbox: git directory: %w", err)
	}
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return RepoConfinement{}, fmt.Errorf("sandbox: %w", err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	gd, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	gd = strings.TrimSpace(gd)
	if !ok || gd == "" {
		return RepoConfinement{}, fmt.Errorf("sandbox: %s does not name a gitdir", dotGit)
	}
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(dir, gd)
	}
	wt, err := filepath.EvalSymlinks(gd)
	if err != nil {
		return RepoConfinement{}, fmt.Errorf("sandbox: worktree gitdir: %w", err)
	}
	if filepath.Dir(wt) != filepath.Join(common, "worktrees") {
		return RepoConfinement{}, fmt.Errorf("sandbox: worktree gitdir %s is not in %s", wt, filepath.Join(common, "worktrees"))
	}
	state, err := stateDir(common)
	if err != nil {
		return RepoConfinement{}, err
	}
	c.ReadOnly = append(c.ReadOnly, dotGit, common)
	c.Masked = append(c.Masked, state)
	return c, nil
}

// stateDir returns Autarch's state directory in the git directory gitDir,
// creating it (private to the user) when missing.
func stateDir(gitDir string) (string, error) {
	p := filepath.Join(gitDir, "autarch")
	if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("sandbox: Autarch's state directory: %w", err)
	}
	return p, nil
}

// UserStateDirs are the user's own Autarch directories (configuration,
// trust store, caches, logs: <user config dir>/autarch and <user cache
// dir>/autarch), masked in every sandbox. Under the home directory they
// are invisible anyway (it is private); elsewhere (XDG_CONFIG_HOME,
// XDG_CACHE_HOME) the mask hides them. A writable bind deeper inside (the
// caches of a repository outside git) still wins.
func UserStateDirs() []string {
	var out []string
	for _, f := range []func() (string, error){os.UserConfigDir, os.UserCacheDir} {
		if d, err := f(); err == nil && filepath.IsAbs(d) {
			out = append(out, filepath.Join(filepath.Clean(d), "autarch"))
		}
	}
	return out
}

// ownCacheDirs are the subdirectories of Spec.OwnCaches and the variable
// that points each tool at its own: the download caches whose content a
// tool copies into the work tree when it installs (node_modules, a
// virtual environment), so that a later command needs nothing from them.
// Go's module cache and cargo's registry are read by every build: they
// stay the user's, read-only.
var ownCacheDirs = [...]struct{ dir, env string }{
	{"npm", "npm_config_cache"},
	{"pip", "PIP_CACHE_DIR"},
	{"yarn", "YARN_CACHE_FOLDER"},
}

// ownCacheEnv points every tool at its cache under dir (Spec.OwnCaches).
func ownCacheEnv(env []string, dir string) []string {
	for _, c := range ownCacheDirs {
		env = setEnv(env, c.env, filepath.Join(dir, c.dir))
	}
	return env
}
