package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// ErrNotGitFile is returned by ReadGitFile for a .git file that does not
// name a git directory the way git writes it ("gitdir: <path>").
var ErrNotGitFile = errors.New(`not a .git file ("gitdir: <path>")`)

// maxGitFile caps the .git and commondir files ReadGitFile reads.
const maxGitFile = 64 << 10

// ReadGitFile reads the .git file of the work tree at dir, as git writes one
// for a linked worktree or a submodule ("gitdir: <path>"), without following
// a symlink named .git and without blocking on a FIFO (ReadSmallFile).
// gitdir is the directory it names, a relative path being taken from dir;
// common is the directory gitdir's commondir file names (a linked worktree's
// repository), else gitdir. Neither is checked to be a git directory, nor
// cleaned of symlinks: callers that trust them check on top.
func ReadGitFile(dir string) (gitdir, common string, err error) {
	dotgit := filepath.Join(dir, ".git")
	data, err := ReadSmallFile(dotgit, maxGitFile)
	if err != nil {
		return "", "", fmt.Errorf("reading %s: %w", dotgit, err)
	}
	gitdir, ok := strings.CutPrefix(strings.TrimRight(string(data), " \t\r\n"), "gitdir: ")
	if !ok || strings.TrimSpace(gitdir) == "" {
		return "", "", fmt.Errorf("%s: %w", dotgit, ErrNotGitFile)
	}
	gitdir = resolveFrom(dir, gitdir)
	data, err = ReadSmallFile(filepath.Join(gitdir, "commondir"), maxGitFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return gitdir, gitdir, nil
	case err != nil:
		return "", "", fmt.Errorf("reading the commondir of %s: %w", gitdir, err)
	}
	common = strings.TrimSpace(string(data))
	if common == "" {
		return gitdir, gitdir, nil
	}
	return gitdir, resolveFrom(gitdir, common), nil
}

// resolveFrom is p, taken from dir when relative.
func resolveFrom(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}
