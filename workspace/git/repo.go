package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Identity is the author and committer of the commits this package makes.
type Identity struct {
	Name  string
	Email string
}

// DefaultIdentity is used when Config.Identity is empty.
func DefaultIdentity() Identity { return Identity{Name: "Autarch", Email: "autarch@localhost"} }

// Config tunes a Repo. The zero value is the default.
type Config struct {
	// Identity authors and commits checkpoints; DefaultIdentity when empty.
	Identity Identity
	// WorktreeRoot is the directory holding workflow worktrees, one
	// subdirectory per workflow; <git-common-dir>/autarch/worktrees when
	// empty.
	WorktreeRoot string
	// GitPath is the git executable; "git" from PATH when empty.
	GitPath string
}

// Repo is a user's repository, opened for workflow operations. It is safe
// for concurrent use; operations on one Workflow must not run concurrently.
type Repo struct {
	dir          string // the folder it was opened from (the user's)
	top          string // its work tree's top level
	commonDir    string
	worktreeRoot string
	git          runner
	prepared     *preparedPool    // fresh worktrees made ahead (PrepareWorktrees)
	commits      *knownCommits    // full ids known to name commits
	trees        *untrackedStates // what the last listing of each work tree's untracked files found (FollowChanges)
	indexes      *indexDigests    // the digests of the index files read, by content
}

// ErrNotRepository is Open's error for a folder outside any git work tree.
var ErrNotRepository = errors.New("not inside a git work tree")

// Open opens the repository containing dir (a work tree folder, not a bare
// repository). Nothing is written. It is the one git call that discovers a
// repository (from dir upwards): call it on the user's folder when a
// session starts, never on a tree an agent may have written since (use
// OpenWorktree there). Every later command names the repository
// explicitly.
func Open(ctx context.Context, dir string, cfg Config) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open repository: %w", err)
	}
	r, err := newRepo(ctx, abs, cfg)
	if err != nil {
		return nil, err
	}
	out, err := r.git.text(ctx, abs, "rev-parse", "--path-format=absolute", "--is-bare-repository", "--git-common-dir", "--show-toplevel", "--absolute-git-dir")
	if err != nil {
		if strings.Contains(err.Error(), "must be run in a work tree") {
			return nil, fmt.Errorf("open repository %s: it is a bare repository or a git directory; open a folder of a work tree", abs)
		}
		return nil, fmt.Errorf("open repository %s: %w: %w", abs, ErrNotRepository, err)
	}
	lines := strings.Split(out, "\n")
	if len(lines) != 4 || lines[0] != "false" {
		return nil, fmt.Errorf("open repository %s: it is a bare repository; open a folder of a work tree", abs)
	}
	r.commonDir, r.top = filepath.Clean(lines[1]), filepath.Clean(lines[2])
	r.git.commonDir, r.git.top, r.git.gitDir = r.commonDir, r.top, filepath.Clean(lines[3])
	if r.git.main, err = r.git.mainTop(ctx); err != nil {
		return nil, fmt.Errorf("open repository %s: %w", abs, err)
	}
	if err := r.setWorktreeRoot(cfg); err != nil {
		return nil, err
	}
	return r, nil
}

// OpenWorktree opens the repository whose git directory (the common one)
// is commonDir, for the work tree dir is in: the repository's main work
// tree or a linked worktree registered in it. Nothing is discovered from
// dir: a .git an agent created there, or a repository it made of a plain
// folder, is never the one opened; a dir in no work tree of commonDir is
// an error.
func OpenWorktree(ctx context.Context, dir, commonDir string, cfg Config) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open repository: %w", err)
	}
	if !filepath.IsAbs(commonDir) {
		return nil, fmt.Errorf("open repository for %s: the git directory %q is not absolute", abs, commonDir)
	}
	r, err := newRepo(ctx, abs, cfg)
	if err != nil {
		return nil, err
	}
	r.commonDir = filepath.Clean(commonDir)
	r.git.commonDir, r.git.gitDir = r.commonDir, r.commonDir
	if r.git.main, err = r.git.mainTop(ctx); err != nil {
		return nil, fmt.Errorf("open repository for %s: %w", abs, err)
	}
	r.git.top = r.git.main
	loc, err := r.git.locate(abs)
	if err != nil {
		return nil, fmt.Errorf("open repository for %s: %w", abs, err)
	}
	r.top, r.git.top, r.git.gitDir = loc.top, loc.top, loc.gitDir
	out, err := r.git.text(ctx, abs, "rev-parse", "--is-bare-repository")
	if err != nil {
		return nil, fmt.Errorf("open repository for %s: %w", abs, err)
	}
	if out != "false" {
		return nil, fmt.Errorf("open repository for %s: %s is a bare repository", abs, r.commonDir)
	}
	if err := r.setWorktreeRoot(cfg); err != nil {
		return nil, err
	}
	return r, nil
}

// newRepo checks cfg and prepares the git runner (not yet bound to a
// repository).
func newRepo(ctx context.Context, abs string, cfg Config) (*Repo, error) {
	bin := cfg.GitPath
	if bin == "" {
		bin = "git"
	}
	bin, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("open repository: git executable not found: %w", err)
	}
	if err := outsideWorkTree(bin, abs); err != nil {
		return nil, err
	}
	id := cfg.Identity
	if id.Name == "" || id.Email == "" {
		id = DefaultIdentity()
	}
	if strings.ContainsAny(id.Name+id.Email, "<>\n\x00") {
		return nil, fmt.Errorf("commit identity %q <%s> must not contain '<', '>', newlines or NUL", id.Name, id.Email)
	}
	environ := os.Environ()
	return &Repo{dir: abs, prepared: &preparedPool{}, commits: &knownCommits{}, trees: &untrackedStates{}, indexes: &indexDigests{}, git: runner{bin: bin, env: hardEnv(environ, id), user: userConfig(ctx, bin, environ)}}, nil
}

// outsideWorkTree refuses a git executable inside the work tree that
// holds dir (the nearest folder up from dir with a .git): a PATH that
// names a folder of the repository (an activated .venv/bin, direnv's
// bin, node_modules/.bin) would otherwise let a file an agent wrote there
// run as Autarch's own git, outside every sandbox.
func outsideWorkTree(bin, dir string) error {
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return fmt.Errorf("open repository: git executable %s: %w", bin, err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			if rel, err := filepath.Rel(d, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return fmt.Errorf("open repository: the git on PATH, %s, is inside the work tree %s, where an agent's files could replace it; "+
					"put a git from outside the repository first on PATH (e.g. /usr/bin), then start Autarch again", real, d)
			}
			return nil
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

func (r *Repo) setWorktreeRoot(cfg Config) error {
	r.worktreeRoot = cfg.WorktreeRoot
	if r.worktreeRoot == "" {
		r.worktreeRoot = filepath.Join(r.commonDir, "autarch", "worktrees")
	}
	var err error
	if r.worktreeRoot, err = filepath.Abs(r.worktreeRoot); err != nil {
		return fmt.Errorf("open repository: worktree root: %w", err)
	}
	return nil
}

// Top is the top-level folder of the user's work tree.
func (r *Repo) Top() string { return r.top }

// CommonDir is the repository's git directory shared by all its worktrees.
func (r *Repo) CommonDir() string { return r.commonDir }

// StateDir is where Autarch keeps this repository's state (the workflow
// database, the index): <git-common-dir>/autarch, outside the user's files
// and shared by all worktrees of the repository.
func (r *Repo) StateDir() string { return filepath.Join(r.commonDir, "autarch") }

// WorktreeRoot is the directory holding the workflows' worktrees.
func (r *Repo) WorktreeRoot() string { return r.worktreeRoot }

// WorktreePath is where the worktree of the workflow named name lives.
func (r *Repo) WorktreePath(name string) string { return filepath.Join(r.worktreeRoot, name) }

// ResolveCommit returns the commit id rev names, as seen from the folder the
// repository was opened from ("HEAD" is the user's HEAD).
func (r *Repo) ResolveCommit(ctx context.Context, rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("revision %q is not accepted: name a branch, tag or commit", rev)
	}
	if r.commits.has(rev) {
		return rev, nil
	}
	out, err := r.git.text(ctx, r.dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%q does not name a commit in %s", rev, r.top)
	}
	r.commits.add(out)
	return out, nil
}

// CurrentBranch is the user's checked-out branch (short name), or "" when
// HEAD is detached.
func (r *Repo) CurrentBranch(ctx context.Context) (string, error) {
	out, err := r.git.text(ctx, r.dir, "symbolic-ref", "--quiet", "--short", "HEAD")
	if exitCode(err) == 1 {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("current branch: %w", err)
	}
	return out, nil
}

// refExists reports whether a full ref name exists.
func (r *Repo) refExists(ctx context.Context, ref string) (bool, error) {
	_, err := r.git.text(ctx, r.dir, "rev-parse", "--verify", "--quiet", ref)
	return yesNo(err)
}

// yesNo reads a git command that answers with its exit status: 0 yes, 1
// no; anything else is an error.
func yesNo(err error) (bool, error) {
	switch exitCode(err) {
	case -1:
		return err == nil, err
	case 1:
		return false, nil
	}
	return false, err
}

// refsUnder lists full ref names under prefix (which ends in "/").
func (r *Repo) refsUnder(ctx context.Context, prefix string) ([]string, error) {
	out, err := r.git.text(ctx, r.dir, "for-each-ref", "--format=%(refname)", prefix)
	if err != nil {
		return nil, err
	}
	if out == "" {
		return nil, nil
	}
	return strings.Split(out, "\n"), nil
}

// ErrNoFile is returned by FileAt for a path that a commit does not have.
var ErrNoFile = errors.New("no such file in that commit")

// FileAt returns a file's content at a commit (read-only plumbing in the
// user's repository).
func (r *Repo) FileAt(ctx context.Context, rev, path string) ([]byte, error) {
	commit, err := r.ResolveCommit(ctx, rev)
	if err != nil {
		return nil, err
	}
	if path == "" || strings.HasPrefix(path, "/") || strings.HasPrefix(path, "-") {
		return nil, fmt.Errorf("path %q is not accepted: give a path relative to the repository top", path)
	}
	if _, err := r.git.run(ctx, r.dir, nil, "cat-file", "-e", commit+":"+path); err != nil {
		return nil, fmt.Errorf("%s at %.8s: %w", path, commit, ErrNoFile)
	}
	return r.git.run(ctx, r.dir, nil, "cat-file", "blob", commit+":"+path)
}

// MergeIntoCurrent fast-forwards the user's checked-out branch to branch:
// the one operation that changes the user's HEAD and working tree, run
// only when the user applies a workflow. git refuses (and changes nothing)
// when the branches diverged or local changes would be overwritten.
func (r *Repo) MergeIntoCurrent(ctx context.Context, branch string) (string, error) {
	if _, err := r.ResolveCommit(ctx, branch); err != nil {
		return "", err
	}
	out, err := r.git.text(ctx, r.top, "merge", "--ff-only", "--no-edit", "--end-of-options", branch)
	if err != nil {
		return "", fmt.Errorf("fast-forward to %s: %w", branch, err)
	}
	return out, nil
}

// ChangedPaths lists the files of a work tree of this repository (the
// user's folder, or a workflow's worktree) whose content differs from rev:
// tracked files changed since rev (committed or not) and untracked files
// that are not ignored. Read-only.
func (r *Repo) ChangedPaths(ctx context.Context, dir, rev string) ([]string, error) {
	return r.changedPaths(ctx, dir, rev, func(ctx context.Context) ([]string, error) {
		untracked, err := r.git.run(ctx, dir, nil, "ls-files", "--others", "--exclude-standard", "-z")
		if err != nil {
			return nil, fmt.Errorf("untracked paths in %s: %w", dir, err)
		}
		return nulList(untracked), nil
	})
}

// changedPaths is ChangedPaths with the untracked files listed by
// untracked, at the same time as git compares the tracked files (issue
// 35: a stat pass and a walk of a 23k-file tree, one after the other).
func (r *Repo) changedPaths(ctx context.Context, dir, rev string, untracked func(context.Context) ([]string, error)) ([]string, error) {
	var others []string
	var othersErr error
	var wg sync.WaitGroup
	wg.Go(func() { others, othersErr = untracked(ctx) })
	defer wg.Wait()
	commit, err := r.ResolveCommit(ctx, rev)
	if err != nil {
		return nil, err
	}
	tracked, err := r.git.run(ctx, dir, nil, "diff", "--name-only", "--no-renames", "-z", commit, "--")
	if err != nil {
		return nil, fmt.Errorf("changed paths in %s: %w", dir, err)
	}
	if wg.Wait(); othersErr != nil {
		return nil, othersErr
	}
	out := append(nulList(tracked), others...)
	slices.Sort(out)
	return slices.Compact(out), nil
}
