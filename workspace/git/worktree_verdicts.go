package git

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// CleanFiles lists the tracked files of the linked worktree dir whose
// content is, as far as git can tell, the blob its index records, and that
// blob is in the store, content-scanned and not withheld: the secret gate
// already found that content clean, so a caller deciding which files of
// the worktree to mask need not read them again (issue 35: the first
// command in a new 23k-file worktree read every file). Paths are relative
// to dir, slash-separated.
//
// A file is listed only when git diff-files finds it unchanged (its stat
// matches the index; a racily clean entry is compared by content), its
// index entry has no assume-unchanged or skip-worktree bit, it is a
// regular file at stage 0, and the store covers the index as it is (the
// same index versions before and after it was read; call it right after
// Update). Nothing is listed where a filter is configured (a smudge filter
// can make a file differ from its clean blob: git-crypt) or the
// repository's info/attributes may re-encode or filter files (the caller
// checks the worktree's .gitattributes files it walks), or when dir is
// no linked worktree (the user's own checkout may have been made with the
// user's global filters, which our git does not read). The caller still
// checks that a file did not change since it looked (its stamp).
func (s *SandboxObjects) CleanFiles(ctx context.Context, dir string) (map[string]bool, error) {
	loc, err := s.repo.git.locate(dir)
	if err != nil {
		return nil, err
	}
	if loc.gitDir == "" || loc.gitDir == s.repo.commonDir {
		return nil, nil // the main work tree, or none
	}
	st := s.load()
	index := s.indexStamps()
	if st.Gen == "" || !slices.Equal(index, st.Index) {
		return nil, nil
	}
	if data, err := os.ReadFile(filepath.Join(s.repo.commonDir, "info", "attributes")); err == nil && (bytes.Contains(data, []byte("encoding")) || bytes.Contains(data, []byte("filter"))) {
		return nil, nil // files may be re-encoded or filtered on checkout
	}
	filters, err := s.repo.git.run(ctx, dir, nil, "config", "--get-regexp", `^filter\.`)
	if exitCode(err) != 1 && (err != nil || len(bytes.TrimSpace(filters)) > 0) {
		return nil, nil // a filter, or config git cannot read: read the files
	}
	ls, err := s.repo.git.run(ctx, dir, nil, "ls-files", "--stage", "-v", "-z")
	if err != nil {
		return nil, fmt.Errorf("list the index: %w", err)
	}
	dirty, err := s.repo.git.run(ctx, dir, nil, "diff-files", "--name-only", "--relative", "-z")
	if err != nil {
		return nil, fmt.Errorf("compare the worktree with its index: %w", err)
	}
	if !slices.Equal(index, s.indexStamps()) {
		return nil, nil // the index changed meanwhile
	}
	changed := map[string]bool{}
	for _, p := range strings.Split(string(dirty), "\x00") {
		changed[p] = true
	}
	clean := map[string]bool{}
	for _, rec := range strings.Split(string(ls), "\x00") {
		// "H <mode> <oid> <stage>\t<path>"
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 || f[0] != "H" || f[3] != "0" || (f[1] != "100644" && f[1] != "100755") || changed[path] {
			continue
		}
		if _, withheld := st.Withheld[f[2]]; withheld {
			continue // read it: the gate decides this path's content itself
		}
		clean[path] = true
	}
	return clean, nil
}
