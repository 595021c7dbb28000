// Package treehash fingerprints a directory tree, for tests that must
// show that something left a folder (a repository, .git included)
// byte-identical.
package treehash

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Sum hashes every file and directory under dir: paths, modes,
// modification times and contents (a symlink by its target). It also
// returns the paths it saw, to tell what differs.
func Sum(dir string) (sum string, paths []string, err error) {
	h := sha256.New()
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		paths = append(paths, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			fmt.Fprintf(h, "dir %s %v\n", rel, info.Mode())
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "link %s %s\n", rel, target)
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "file %s %v %d %x\n", rel, info.Mode(), info.ModTime().UnixNano(), sha256.Sum256(b))
		}
		return nil
	})
	if err != nil {
		return "", nil, fmt.Errorf("fingerprint %s: %w", dir, err)
	}
	return fmt.Sprintf("%x", h.Sum(nil)), paths, nil
}
