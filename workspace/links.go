package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
)

// ErrChangedWhileRead reports that the file at a path is no longer the
// one that was read there: its names cannot be vouched for.
var ErrChangedWhileRead = errors.New("the file changed while it was read")

// errAliasFound stops BlockedAlias's walk at the first blocked name.
var errAliasFound = errors.New("alias found")

// BlockedAlias finds a name, other than rel, under which the file read at
// rel (its version st; the zero Stamp when that is not known) lies in the
// root and which blocked accepts, so that a file kept from view by its
// name is not shown under another one:
//   - the path rel leads to once its symlinks are followed (os.Root
//     follows symlinks that stay inside the root);
//   - when the file has more than one hard link, any other name it has in
//     the root: a walk of the whole tree, ignored folders included, that
//     stats only the names blocked accepts (a tree rarely holds a file
//     with several names, so the walk is rarely paid).
//
// It returns "" when there is none. It fails with ErrChangedWhileRead
// when the path no longer leads to the file st identifies.
func (r *Root) BlockedAlias(rel string, st Stamp, blocked func(rel string) bool) (string, error) {
	real, err := r.Resolve(rel)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", rel, err)
	}
	if real != rel && blocked(real) {
		return real, nil
	}
	var now syscall.Stat_t
	if err := syscall.Lstat(r.Abs(real), &now); err != nil {
		return "", fmt.Errorf("%s: %w", rel, ErrChangedWhileRead)
	}
	if st != (Stamp{}) && (uint64(now.Dev) != st.dev || now.Ino != st.ino) {
		return "", fmt.Errorf("%s: %w", rel, ErrChangedWhileRead)
	}
	if uint64(now.Nlink) < 2 || now.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return "", nil
	}
	return r.otherBlockedName(real, uint64(now.Dev), now.Ino, blocked)
}

// otherBlockedName walks the whole root for a name, other than real, of
// the file (dev, ino) that blocked accepts.
func (r *Root) otherBlockedName(real string, dev, ino uint64, blocked func(rel string) bool) (string, error) {
	var found string
	top := r.Abs(".")
	err := filepath.WalkDir(top, func(abs string, d fs.DirEntry, err error) error {
		if err != nil {
			// An unreadable folder may hold the other name: say so
			// rather than vouch for the file.
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(top, abs)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == real || !blocked(rel) {
			return nil
		}
		var st syscall.Stat_t
		if syscall.Lstat(abs, &st) == nil && uint64(st.Dev) == dev && st.Ino == ino {
			found = rel
			return errAliasFound
		}
		return nil
	})
	if errors.Is(err, errAliasFound) {
		return found, nil
	}
	if err != nil {
		return "", fmt.Errorf("looking for the other names of %s: %w", real, err)
	}
	return "", nil
}

// Links is the number of hard links of the file f read (0 when closed).
func (f *WalkedFile) Links() uint64 {
	if !f.open {
		return 0
	}
	return uint64(f.st.Nlink)
}

// BlockedError is ReadShown's refusal: the gate keeps the file from view.
type BlockedError struct {
	// Reason says why, for the reader (the model or the user).
	Reason string
}

func (e *BlockedError) Error() string { return e.Reason }

// ReadShown reads the regular file at rel (at most max bytes) to show its
// content: the one door through which the host shows a file of the tree.
// It refuses (*BlockedError) a file the gate blocks by its path, by a
// secret in its content (FileBlockedStamp: the verdict known for this
// version of the file, else decided now), or by another name it has in
// the root (AliasBlocked). Other errors are the read's (missing, not a
// regular file, too large).
func (g *Gate) ReadShown(r *Root, rel string, max int64) ([]byte, Stamp, error) {
	data, st, err := r.ReadFileStamp(rel, max)
	if err != nil {
		return nil, Stamp{}, err
	}
	if reason, blocked := g.ShownBlocked(r, rel, data, st); blocked {
		return nil, Stamp{}, &BlockedError{Reason: reason}
	}
	return data, st, nil
}

// ShownBlocked is ReadShown's verdict on content already read at rel
// (version st, or the zero Stamp): FileBlockedStamp, then AliasBlocked.
func (g *Gate) ShownBlocked(r *Root, rel string, data []byte, st Stamp) (reason string, blocked bool) {
	if reason, blocked := g.FileBlockedStamp(rel, data, st); blocked {
		return reason, true
	}
	return g.AliasBlocked(r, rel, st)
}

// AliasBlocked is the gate's verdict on the other names of the file read
// at rel (version st): a file the gate keeps from view by its name (a
// .env, a terraform state) is not shown through a symlink to it or a
// hard link of it under an innocent name (Root.BlockedAlias). A file that
// changed while it was read is refused too, since its names cannot be
// vouched for; reading it again decides afresh.
func (g *Gate) AliasBlocked(r *Root, rel string, st Stamp) (reason string, blocked bool) {
	alias, err := r.BlockedAlias(rel, st, func(name string) bool {
		_, b := g.PathBlocked(name)
		return b
	})
	switch {
	case errors.Is(err, ErrChangedWhileRead):
		return rel + " changed while it was read; read it again", true
	case err != nil:
		return fmt.Sprintf("%s could not be checked for other names (%v), so it is not shown", rel, err), true
	case alias == "":
		return "", false
	}
	why, _ := g.PathBlocked(alias)
	return fmt.Sprintf("%s is another name (a symlink or hard link) of %s, which is blocked: %s. "+
		"To see its names: find . -samefile %s; remove the link if it is not meant to be there", rel, alias, why, rel), true
}
