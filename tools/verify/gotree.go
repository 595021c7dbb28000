package verify

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// A gate's go command builds with a cache it keeps across gates (the
// sandbox's gate cache), and the go command finds an archive there by
// an action id that hashes the files of the package's own folder, its
// flags and its toolchain: not a file that a cgo preamble, a C file or
// an assembly file of the package includes from elsewhere
// ("../hdr/x.h", -I${SRCDIR}/.., "sub/x.h", "../README"). An agent
// would pass one gate with a good header, change the header alone, and
// every later gate would reuse the archive compiled from the old one.
//
// So when the tree has a cgo package or an assembly file, a gate's go
// command carries a digest of the tree into the action ids of the
// packages that can include a file (goTree.wrap): CGO_CPPFLAGS gets
// -D_AUTARCH_GATE_TREE=<digest> (the go command hashes it into every cgo
// package's id, std's included), and -asmflags=<the tree's
// packages>=-D=_AUTARCH_GATE_TREE=<digest> goes into GOFLAGS (hashed
// into the ids of the tree's packages with assembly only, so runtime's
// is not rebuilt). The macro changes no code. The digest is over the
// stamps (path, type, size, mtime, ctime, inode) of every file of the
// tree, .go files included (with macros a C file can include anything,
// and the go command hashes neither a .go file a build constraint or
// its name excludes nor one outside any package), symlinks by target;
// ctime cannot be set from user space, so a stamp changes whenever the
// content does. A pure-Go tree's commands are left as they are.

// treeMacro is the preprocessor macro that carries the tree's digest.
const treeMacro = "_AUTARCH_GATE_TREE"

// maxCgoScan is the largest .go file read to learn whether it imports
// "C"; a larger one is taken to.
const maxCgoScan = 16 << 20

// goTree is what a scan of the tree found.
type goTree struct {
	cgo bool // a .go file imports "C" (or may: unreadable, a symlink) or the tree has SWIG files
	asm bool // the tree has assembly files (.s, .S, .sx)
	// vendored are the folders holding assembly below a vendor folder,
	// slash paths relative to the root: a "..." pattern leaves them out.
	vendored []string
	digest   string
}

// scanGoTree walks the tree at root without following symlinks: whether
// it has cgo or assembly, and, when it has, the digest of its files'
// stamps. The root's .git is left out: commands cannot write it. A
// folder that cannot be read makes the digest one no other scan gives
// (nothing is reused from the cache), and counts as cgo and assembly.
func scanGoTree(ctx context.Context, root string) goTree {
	var g goTree
	var files []string // every entry but folders, relative, in walk order
	unreadable := false
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			unreadable = true
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return rerr
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if rel == ".git" {
			return nil
		}
		files = append(files, rel)
		name := d.Name()
		switch ext := path.Ext(name); ext {
		case ".s", ".S", ".sx":
			g.asm = true
			// A folder whose name cannot be an import path holds no
			// package the go command builds (and could not be quoted).
			if dir := path.Dir(rel); slices.Contains(strings.Split(dir, "/"), "vendor") && patternSafe(dir) && !slices.Contains(g.vendored, dir) {
				g.vendored = append(g.vendored, dir)
			}
		case ".swig", ".swigcxx":
			g.cgo = true
		case ".go":
			if !g.cgo && (d.Type()&fs.ModeSymlink != 0 || importsC(p)) {
				g.cgo = true
			}
		}
		return nil
	})
	if err != nil {
		unreadable = true
	}
	if unreadable {
		g.cgo, g.asm = true, true
	}
	if !g.cgo && !g.asm {
		return g
	}
	h := sha256.New()
	for _, rel := range files {
		h.Write([]byte(rel))
		h.Write([]byte{0})
		writeStamp(h, filepath.Join(root, filepath.FromSlash(rel)))
	}
	if unreadable {
		h.Write([]byte("unreadable\x00"))
		h.Write([]byte(rand.Text()))
	}
	g.digest = hex.EncodeToString(h.Sum(nil)[:16])
	return g
}

// writeStamp writes the stamp of the file at p (not following a
// symlink; its target too) to w: what changes whenever its content does.
func writeStamp(w io.Writer, p string) {
	fi, err := os.Lstat(p)
	if err != nil {
		w.Write([]byte("gone\x00")) //nolint:errcheck // a hash
		return
	}
	w.Write([]byte(fi.Mode().String() + "\x00")) //nolint:errcheck
	w.Write(stamp(fi))                           //nolint:errcheck
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(p)
		w.Write([]byte(target + "\x00")) //nolint:errcheck
	}
}

// importsC reports whether the .go file at p may import "C": it cannot be
// read as a regular file, is too large to read, or its imports name "C".
func importsC(p string) bool {
	f, err := openNoFollow(p)
	if err != nil {
		return true
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxCgoScan {
		return true
	}
	src, err := io.ReadAll(io.LimitReader(f, maxCgoScan+1))
	if err != nil || len(src) > maxCgoScan {
		return true
	}
	if !bytes.Contains(src, []byte(`"C"`)) && !bytes.Contains(src, []byte("`C`")) {
		return false
	}
	file, err := parser.ParseFile(token.NewFileSet(), p, src, parser.ImportsOnly)
	if err != nil {
		return true // unparsable here: the go command may read it otherwise
	}
	for _, imp := range file.Imports {
		if imp.Path != nil && (imp.Path.Value == `"C"` || imp.Path.Value == "`C`") {
			return true
		}
	}
	return false
}

// wrap is command (a go command run in dir, a slash path relative to the
// root) with the tree's digest in the action ids of the packages that
// can include one of its files; command itself when the tree has
// neither cgo nor assembly.
func (g goTree) wrap(command, dir string) string {
	if !g.cgo && !g.asm {
		return command
	}
	var env []string
	if g.cgo {
		env = append(env, `CGO_CPPFLAGS="${CGO_CPPFLAGS:+$CGO_CPPFLAGS }-D`+treeMacro+`=`+g.digest+`"`)
	}
	if g.asm {
		up := upTo(dir)
		flags := []string{"-asmflags=" + up + "/...=-D=" + treeMacro + "=" + g.digest}
		for _, v := range g.vendored {
			flags = append(flags, "-asmflags="+relFrom(dir, v)+"=-D="+treeMacro+"="+g.digest)
		}
		env = append(env, `GOFLAGS="${GOFLAGS:+$GOFLAGS }`+strings.Join(flags, " ")+`"`)
	}
	return strings.Join(env, " ") + " " + command
}

// upTo is the relative path from dir (slash, relative to the root) up to
// the root: "." or "../..".
func upTo(dir string) string {
	dir = path.Clean(dir)
	if dir == "." {
		return "."
	}
	return strings.TrimSuffix(strings.Repeat("../", strings.Count(dir, "/")+1), "/")
}

// relFrom is the relative path from dir to target (both slash paths
// relative to the root), starting with ./ or ../ as a go package pattern
// must.
func relFrom(dir, target string) string {
	dir = path.Clean(dir)
	if dir == "." {
		return "./" + target
	}
	if rest, ok := strings.CutPrefix(target, dir+"/"); ok {
		return "./" + rest
	}
	return upTo(dir) + "/" + target
}

// patternSafe reports whether a folder's path can go into a package
// pattern in GOFLAGS, within double quotes in bash, as it is: the
// characters of import paths but '=' and space.
func patternSafe(p string) bool {
	return strings.IndexFunc(p, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '_' || r == '-' || r == '~' || r == '+' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0
}
