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
// and a package's id hashes no .go file of a package it does not
// import, nor one a build constraint or its name excludes), symlinks by
// target; ctime cannot be set from user space, so a stamp changes
// whenever the content does. Each new digest (any file of the tree
// changed) compiles the tree's cgo and assembly packages again, and
// std's cgo packages (runtime/cgo, net, os/user) once; their dependents
// are reused (the macro leaves the archives as they were). A pure-Go
// tree's commands are left as they are.

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

// scanGoTree scans the tree at root for a go command run in dir (a
// slash path relative to root), without following symlinks: whether the
// packages it can build have cgo or assembly (those of dir's module, its
// vendor folder included, not those of a module nested in it, unless
// its go.mod replaces a module with a folder or a go.work is in the
// tree: then the whole tree's), and, when they have, the digest of the
// stamps of every file of the tree. The root's .git is left out:
// commands cannot write it. A folder that cannot be read makes the
// digest one no other scan gives (nothing is reused from the cache), and
// counts as cgo and assembly.
func scanGoTree(ctx context.Context, root, dir string) goTree {
	var g goTree
	unreadable := false
	start, nested := root, false
	if !wholeTree(root, dir) {
		start, nested = filepath.Join(root, filepath.FromSlash(dir)), true
	}
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == start {
				return err
			}
			unreadable = true
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if d.IsDir() {
			if p == filepath.Join(root, ".git") {
				return filepath.SkipDir
			}
			if _, err := os.Lstat(filepath.Join(p, "go.mod")); nested && p != start && err == nil {
				return filepath.SkipDir // another module: dir's go command builds none of its packages
			}
			return nil
		}
		name := d.Name()
		switch ext := path.Ext(name); ext {
		case ".s", ".S", ".sx":
			g.asm = true
			rel, rerr := filepath.Rel(root, filepath.Dir(p))
			if rerr != nil {
				return rerr
			}
			// A folder whose name cannot be an import path holds no
			// package the go command builds (and could not be quoted).
			if rel = filepath.ToSlash(rel); slices.Contains(strings.Split(rel, "/"), "vendor") && patternSafe(rel) && !slices.Contains(g.vendored, rel) {
				g.vendored = append(g.vendored, rel)
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
	g.digest = treeDigest(ctx, root)
	if unreadable {
		sum := sha256.Sum256([]byte(g.digest + "\x00unreadable\x00" + rand.Text()))
		g.digest = hex.EncodeToString(sum[:16])
	}
	return g
}

// wholeTree reports whether a go command in dir may build packages of
// the tree outside dir's module: its go.mod replaces a module with a
// folder, or a go.work is in dir or above it in the tree.
func wholeTree(root, dir string) bool {
	for d := path.Clean(dir); ; d = path.Dir(d) {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(d), "go.work")); err == nil {
			return true
		}
		if d == "." || d == "/" {
			break
		}
	}
	mod, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(dir), "go.mod"))
	if err != nil {
		return true
	}
	for _, l := range strings.Split(string(mod), "\n") {
		if _, target, ok := strings.Cut(l, "=>"); ok {
			if t := strings.TrimLeft(target, " \t\"`"); strings.HasPrefix(t, ".") || strings.HasPrefix(t, "/") {
				return true
			}
		}
	}
	return false
}

// treeDigest is the digest of the stamps of every file of the tree at
// root (not following symlinks; the root's .git left out).
func treeDigest(ctx context.Context, root string) string {
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			h.Write([]byte(p + "\x00unreadable\x00" + rand.Text()))
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if d.IsDir() {
			if p == filepath.Join(root, ".git") {
				return filepath.SkipDir
			}
			return nil
		}
		h.Write([]byte(p))
		h.Write([]byte{0})
		writeStamp(h, p)
		return nil
	})
	if err != nil {
		h.Write([]byte("unreadable\x00" + rand.Text()))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
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
