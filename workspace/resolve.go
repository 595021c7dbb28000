package workspace

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// maxLinks bounds the symlinks followed while resolving one path.
const maxLinks = 40

// Resolve returns the path a clean relative path designates once every
// symlink in it is followed, as a clean path relative to the root. Missing
// components are kept as written (a file about to be created). A path that
// resolves outside the root gives ErrOutside. Guardrails match protected
// globs on both the written and the resolved path, so `cfg/hooks` with
// `cfg -> .autarch` is `.autarch/hooks`.
func (r *Root) Resolve(rel string) (string, error) {
	if rel == "" || rel == "." {
		return ".", nil
	}
	done := "."
	todo := strings.Split(rel, "/")
	links := 0
	for len(todo) > 0 {
		part := todo[0]
		todo = todo[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			if done == "." {
				return "", ErrOutside
			}
			done = path.Dir(done)
			continue
		}
		next := path.Join(done, part)
		fi, err := r.root.Lstat(filepath.FromSlash(next))
		if errors.Is(err, fs.ErrNotExist) {
			return path.Join(append([]string{next}, todo...)...), nil
		}
		if err != nil {
			return "", explain(next, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		if links++; links > maxLinks {
			return "", errors.New("too many levels of symbolic links in " + rel)
		}
		target, err := r.root.Readlink(filepath.FromSlash(next))
		if err != nil {
			return "", explain(next, err)
		}
		target = filepath.ToSlash(target)
		if path.IsAbs(target) {
			inside, err := r.Clean(target)
			if err != nil {
				return "", ErrOutside
			}
			done, target = ".", inside
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	return done, nil
}
