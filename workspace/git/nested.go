package git

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Excluded is a path left out of a commit because an agent made it a
// repository of its own: a nested repository (a directory holding a .git
// directory or file) or a gitlink (a mode 160000 index entry, a submodule
// pointer) that the base commit does not have.
type Excluded struct {
	Path string `json:"path"`
	// Kind is "nested repository" or "gitlink".
	Kind string `json:"kind"`
}

// Exclusion kinds.
const (
	KindNestedRepo = "nested repository"
	KindGitlink    = "gitlink"
	// KindGitDir is a git directory (HEAD, objects/, refs/) an agent made
	// among its files, e.g. one a .git file of a nested repository names.
	KindGitDir = "git directory"
	// KindIncluded is a file of the worktree a nested repository's config
	// includes (include.path, includeIf.*.path).
	KindIncluded = "configuration a nested repository includes"
)

// Message tells the model or the user what was left out and what to do.
func (e Excluded) Message() string {
	if e.Kind == KindIncluded {
		return fmt.Sprintf("%s is git configuration a nested repository created in the worktree includes; Autarch does not commit it: remove it with the nested repository", e.Path)
	}
	if e.Kind == KindGitDir {
		return fmt.Sprintf("%s/ is a git directory created in the worktree; Autarch does not commit nested repositories or gitlinks it did not start with, nor their git directories: remove %s/", e.Path, e.Path)
	}
	if e.Kind == KindNestedRepo {
		return fmt.Sprintf("%s/ is a nested git repository created in the worktree; Autarch does not commit nested repositories or gitlinks it did not start with: remove %s/.git or copy the files in as plain files", e.Path, e.Path)
	}
	return fmt.Sprintf("%s was a gitlink (a submodule entry) in the index that the base commit does not have, now taken out of the index; Autarch does not commit nested repositories or gitlinks it did not start with: remove %s/.git, if any, or copy the files in as plain files", e.Path, e.Path)
}

// ExcludedMessage joins the messages of excluded paths ("" for none).
func ExcludedMessage(ex []Excluded) string {
	msgs := make([]string, len(ex))
	for i, e := range ex {
		msgs[i] = e.Message()
	}
	return strings.Join(msgs, "\n")
}

// StageAll stages the changes of the work tree at dir (git add --all) under
// paths (the whole tree when empty), but not the excluded paths (literal,
// from the top; a directory excludes everything below it), and never a
// nested repository an agent created nor a gitlink that base does not
// have: those are left out of the index (a gitlink entry goes back to
// what base has at its path) and returned. base is a commit (or "HEAD").
// The gitlinks base has (the repository's own submodules) are left as
// they are in the index: git add would start a git status inside each
// (whatever the configuration says), which runs what that nested
// repository's config names.
//
// The nested repositories are found by git itself, from the untracked
// files it lists anyway (one walk of untracked, not ignored paths; a
// nested repository is listed as "dir/"), never by a walk of the whole
// tree; the gitlinks from the index's entries and a diff of the index
// against base (no process in any nested repository).
func (r *Repo) StageAll(ctx context.Context, dir, base string, paths, exclude []string) ([]Excluded, error) {
	return r.stageAll(ctx, dir, base, paths, exclude, func(ctx context.Context, exclude []string) ([]string, error) {
		return r.untracked(ctx, dir, paths, exclude)
	}, nil)
}

// stageAll is StageAll with the untracked files under paths but exclude
// listed by list. update, when not nil, are the only tracked files that
// may differ from the index (trackedScan.maybe; only with no paths).
func (r *Repo) stageAll(ctx context.Context, dir, base string, paths, exclude []string, list func(ctx context.Context, exclude []string) ([]string, error), update []string) ([]Excluded, error) {
	links, err := r.gitlinks(ctx, dir)
	if err != nil {
		return nil, err
	}
	var out []Excluded
	var kept []string // the repository's own submodules
	if len(links) > 0 {
		dropped, err := r.dropNewGitlinks(ctx, dir, base)
		if err != nil {
			return nil, err
		}
		out = append(out, dropped...)
		for _, l := range links {
			if !slices.ContainsFunc(dropped, func(e Excluded) bool { return e.Path == l }) {
				kept = append(kept, l)
				exclude = append(exclude, l)
			}
		}
	}
	untracked, err := list(ctx, exclude)
	if err != nil {
		return nil, err
	}
	nested, err := r.nestedRepos(dir, untracked)
	if err != nil {
		return nil, err
	}
	for _, n := range nested {
		exclude = append(exclude, n.Path)
		if !slices.ContainsFunc(out, func(e Excluded) bool { return e.Path == n.Path }) {
			out = append(out, n)
		}
	}
	if len(nested) > 0 {
		inc, err := r.includedConfig(ctx, dir, nested)
		if err != nil {
			return nil, err
		}
		for _, p := range inc {
			exclude = append(exclude, p)
			out = append(out, Excluded{Path: p, Kind: KindIncluded})
		}
	}
	if err := r.add(ctx, dir, paths, exclude, untracked, update); err != nil {
		return nil, err
	}
	// git add made none (every nested repository was excluded); a
	// repository created since is caught here.
	if r.noNewGitlinks(dir, kept) {
		return out, nil
	}
	late, err := r.dropNewGitlinks(ctx, dir, base)
	if err != nil {
		return nil, err
	}
	for _, l := range late {
		if !slices.ContainsFunc(out, func(e Excluded) bool { return e.Path == l.Path }) {
			out = append(out, Excluded{Path: l.Path, Kind: KindNestedRepo})
		}
	}
	return out, nil
}

// gitlinks lists the index's gitlink entries (mode 160000), read from the
// index file where it can (issue 35: git ls-files printed 23k entries to
// find none).
func (r *Repo) gitlinks(ctx context.Context, dir string) ([]string, error) {
	if loc, err := r.git.locate(dir); err == nil && loc.gitDir != "" {
		if d, ok := r.indexDigest(filepath.Join(loc.gitDir, "index")); ok {
			return d.gitlinks, nil
		}
	}
	out, err := r.git.run(ctx, dir, nil, "ls-files", "--stage", "-z")
	if err != nil {
		return nil, fmt.Errorf("list the index: %w", err)
	}
	var links []string
	for _, e := range strings.Split(string(out), "\x00") {
		if rest, ok := strings.CutPrefix(e, "160000 "); ok {
			if _, path, ok := strings.Cut(rest, "\t"); ok {
				links = append(links, path)
			}
		}
	}
	return links, nil
}

// untracked lists the untracked, not ignored paths under paths (the whole
// tree when empty) but exclude (directory paths, without the trailing
// slash), from the top of the work tree: one walk of the tree. A nested
// repository is listed as "dir/".
func (r *Repo) untracked(ctx context.Context, dir string, paths, exclude []string) ([]string, error) {
	args := []string{"ls-files", "--others", "--exclude-standard", "--full-name", "-z", "--"}
	if len(paths) == 0 {
		args = append(args, ":(top)")
	}
	for _, p := range paths {
		args = append(args, ":(literal,top)"+p)
	}
	for _, a := range exclude {
		args = append(args, ":(exclude,literal,top)"+strings.TrimSuffix(a, "/"))
	}
	out, err := r.git.run(ctx, dir, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("list untracked files: %w", err)
	}
	return nulList(out), nil
}

// nestedRepos finds the nested repositories and git directories among the
// untracked paths of the work tree at dir (untracked).
func (r *Repo) nestedRepos(dir string, untracked []string) ([]Excluded, error) {
	loc, err := r.git.locate(dir)
	if err != nil {
		return nil, err
	}
	var nested []Excluded
	for _, p := range untracked {
		switch {
		case strings.HasSuffix(p, "/"):
			nested = append(nested, Excluded{Path: strings.TrimSuffix(p, "/"), Kind: KindNestedRepo})
		case strings.HasSuffix(p, "/HEAD"):
			d := path.Dir(p)
			if isGitDir(filepath.Join(loc.top, filepath.FromSlash(d))) && !slices.ContainsFunc(nested, func(e Excluded) bool { return e.Path == d }) {
				nested = append(nested, Excluded{Path: d, Kind: KindGitDir})
			}
		}
	}
	return nested, nil
}

// add stages the changes of the work tree at dir under paths (the whole
// tree when empty) but exclude, as git add --all would, given the
// untracked files one walk listed (untracked, under the same paths and
// exclude). For the whole tree it pays one stat pass and no second walk:
// git add --update stages the changed and deleted tracked files, and git
// update-index --add adds the listed untracked files by name (issue 35:
// on 45k files the second walk of add --all cost as much as the first).
// Staging named paths keeps git add --all, which reports a path that
// matches nothing. update, when not nil, narrows git add --update to those
// tracked files (the others are known to match the index: trackedPass).
func (r *Repo) add(ctx context.Context, dir string, paths, exclude, untracked, update []string) error {
	var spec strings.Builder
	if len(paths) == 0 {
		spec.WriteString(":(top)\x00")
	}
	for _, p := range paths {
		spec.WriteString(":(literal,top)" + p + "\x00")
	}
	for _, a := range exclude {
		spec.WriteString(":(exclude,literal,top)" + strings.TrimSuffix(a, "/") + "\x00")
	}
	addAll := func() error {
		if _, err := r.git.run(ctx, dir, strings.NewReader(spec.String()), "add", "--all", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			return fmt.Errorf("stage changes: %w", err)
		}
		return nil
	}
	if len(paths) > 0 {
		return addAll()
	}
	updateSpec := spec.String()
	if update != nil && len(update) <= maxNarrowed {
		var b strings.Builder
		for _, p := range update {
			b.WriteString(":(literal,top)" + p + "\x00")
		}
		for _, a := range exclude {
			b.WriteString(":(exclude,literal,top)" + strings.TrimSuffix(a, "/") + "\x00")
		}
		updateSpec = b.String()
	}
	if update == nil || len(update) > 0 {
		if _, err := r.git.run(ctx, dir, strings.NewReader(updateSpec), "add", "--update", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			return fmt.Errorf("stage changes: %w", err)
		}
	}
	var names strings.Builder
	for _, p := range untracked {
		if strings.HasSuffix(p, "/") || slices.ContainsFunc(exclude, func(e string) bool { return isUnderSlash(p, strings.TrimSuffix(e, "/")) }) {
			continue // a nested repository, or what the walk's exclusions did not yet know
		}
		names.WriteString(p + "\x00")
	}
	if names.Len() == 0 {
		return nil
	}
	loc, err := r.git.locate(dir)
	if err != nil {
		return err
	}
	if _, err := r.git.run(ctx, loc.top, strings.NewReader(names.String()), "update-index", "--add", "--remove", "-z", "--stdin"); err != nil {
		// A path git will not take by name (a file that became a
		// directory, …): the whole tree the ordinary way.
		return addAll()
	}
	return nil
}

// isUnderSlash reports whether the slash path p is dir or lies below it.
func isUnderSlash(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// includedConfig lists the files of the work tree that the config files of
// the nested repositories include (include.path, includeIf.*.path), as
// paths from the top. The config is parsed by git config --file, which
// follows no include and runs nothing.
func (r *Repo) includedConfig(ctx context.Context, dir string, nested []Excluded) ([]string, error) {
	loc, err := r.git.locate(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range nested {
		gitDir := filepath.Join(loc.top, filepath.FromSlash(n.Path))
		if n.Kind != KindGitDir {
			gitDir = nestedGitDir(filepath.Join(gitDir, ".git"))
		}
		cfg := filepath.Join(gitDir, "config")
		if fi, err := os.Lstat(cfg); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxNestedFile {
			continue
		}
		val, err := r.git.run(ctx, dir, nil, "config", "--file", cfg, "--null", "--get-regexp", `^include(if\..*)?\.path$`)
		if exitCode(err) == 1 || exitCode(err) == 3 { // none, or a file git cannot parse
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read the includes of %s: %w", cfg, err)
		}
		for _, rec := range strings.Split(string(val), "\x00") {
			_, p, ok := strings.Cut(rec, "\n")
			if !ok || p == "" || strings.HasPrefix(p, "~") {
				continue
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(gitDir, p)
			}
			rel, err := filepath.Rel(loc.top, filepath.Clean(p))
			if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
				continue
			}
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out, nil
}

// maxNestedFile caps the .git files and configs of nested repositories
// read (no FIFO, device or huge file is opened).
const maxNestedFile = 1 << 20

// nestedGitDir is the git directory of a nested repository's .git: the
// directory itself, or the one a .git file names.
func nestedGitDir(dotGit string) string {
	fi, err := os.Lstat(dotGit)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxNestedFile {
		return dotGit
	}
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return dotGit
	}
	gd, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return dotGit
	}
	gd = strings.TrimSpace(gd)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(filepath.Dir(dotGit), gd)
	}
	return gd
}

// isGitDir reports a directory laid out as a git directory: a HEAD file,
// objects/ and refs/ directories.
func isGitDir(d string) bool {
	head, err := os.Lstat(filepath.Join(d, "HEAD"))
	if err != nil || !head.Mode().IsRegular() {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Lstat(filepath.Join(d, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// dropNewGitlinks puts every gitlink of the index that base does not have
// back to base's entry (or out of the index) and returns them.
func (r *Repo) dropNewGitlinks(ctx context.Context, dir, base string) ([]Excluded, error) {
	out, err := r.git.run(ctx, dir, nil, "diff-index", "--cached", "-z", "--raw", "--no-renames", "--ignore-submodules=none", "--end-of-options", base, "--")
	if err != nil {
		return nil, fmt.Errorf("check the staged changes for gitlinks: %w", err)
	}
	var ex []Excluded
	var info strings.Builder
	f := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		// :<old mode> <new mode> <old oid> <new oid> <status>, then the path
		meta := strings.Fields(strings.TrimPrefix(f[i], ":"))
		path := f[i+1]
		if len(meta) < 5 || meta[1] != "160000" || meta[0] == "160000" {
			continue
		}
		ex = append(ex, Excluded{Path: path, Kind: KindGitlink})
		if meta[0] == "000000" {
			info.WriteString("0 " + strings.Repeat("0", len(meta[3])) + "\t" + path + "\x00") // mode 0 removes
		} else {
			info.WriteString(meta[0] + " " + meta[2] + "\t" + path + "\x00")
		}
	}
	if len(ex) == 0 {
		return nil, nil
	}
	if _, err := r.git.run(ctx, dir, strings.NewReader(info.String()), "update-index", "-z", "--index-info"); err != nil {
		return nil, fmt.Errorf("unstage gitlinks: %w", err)
	}
	return ex, nil
}
