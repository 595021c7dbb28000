package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/autarch-dev/autarch/workspace/git"
	"github.com/autarch-dev/autarch/workspace/sandbox"
)

// objectsConfinement is a session's filtered git object store: commands
// see it in place of the repository's objects, so no blob of a file the
// gate blocks can come out of git (git show HEAD:.env, git log -p,
// cat-file --batch-all-objects, a zlib reader over .git/objects).
type objectsConfinement struct {
	once  sync.Once
	store *git.SandboxObjects // nil where the root is no repository
	dest  string              // the object directory it stands in for
	err   error
}

// gitContentDirs are directories of a git directory that hold file
// content outside the object store: LFS objects, submodules' object
// stores, recorded conflict resolutions, an interrupted cherry-pick's
// state. Commands see them masked.
var gitContentDirs = []string{"lfs", "modules", "rr-cache", "sequencer"}

// objectBinds returns the binds and masks that hide the repository's
// object store (and other content under the git directory) from a
// command: the filtered store, brought up to date, over the real objects.
// When the store cannot be built the objects are masked whole (git cannot
// read any object then) and the failure is logged.
func (s *Session) objectBinds(ctx context.Context) (binds []sandbox.Bind, masked []string) {
	o := &s.confine.objects
	o.once.Do(func() {
		o.store, o.dest, o.err = s.openSandboxObjects(ctx)
		if o.err != nil {
			slog.Warn("sandbox: the filtered git object store cannot be opened; commands of this session see no git objects", "err", o.err)
		}
	})
	if o.store == nil && o.err == nil {
		return nil, nil
	}
	if o.err == nil {
		common := filepath.Dir(o.dest)
		for _, d := range gitContentDirs {
			masked = append(masked, filepath.Join(common, d))
		}
		// The store itself: an older generation may hold a blob withheld
		// since (a clean file renamed to a secret name).
		masked = append(masked, o.store.StoresDir())
		v, err := o.store.Update(ctx)
		if err == nil {
			return []sandbox.Bind{{Source: v.Objects, Dest: o.dest}, {Source: v.ReplaceRefs, Dest: o.store.ReplaceRefsDir()}}, masked
		}
		slog.Warn("sandbox: the filtered git object store cannot be updated; commands see no git objects", "err", err)
		return nil, append(masked, o.dest)
	}
	if o.dest == "" {
		return nil, []string{filepath.Join(s.root.Dir(), ".git", "objects")}
	}
	return nil, []string{o.dest}
}

// PrepareObjects brings the filtered git object store the session's
// commands see up to date now, so that the first command does not wait
// for it (issue 35: its first build on a 23k-file repository took most of
// a minute of a workflow's first command). Call it in the background.
func (s *Session) PrepareObjects(ctx context.Context) { s.objectBinds(ctx) }

// openSandboxObjects opens the filtered store of the repository whose
// work tree is the root: nil when the root is no repository's top (no
// .git in it).
func (s *Session) openSandboxObjects(ctx context.Context) (*git.SandboxObjects, string, error) {
	dir := s.root.Dir()
	fi, err := os.Lstat(filepath.Join(dir, ".git"))
	if err != nil {
		return nil, "", nil
	}
	common := filepath.Join(dir, ".git")
	if !fi.IsDir() {
		if common = s.gitCommonDir(); common == "" {
			return nil, "", fmt.Errorf("%s/.git is no directory and names no linked worktree of a known repository", dir)
		}
	}
	dest := filepath.Join(common, "objects")
	repo, err := git.Open(ctx, dir, git.Config{})
	if err != nil {
		return nil, dest, err
	}
	got, err1 := filepath.EvalSymlinks(repo.CommonDir())
	want, err2 := filepath.EvalSymlinks(common)
	if err1 != nil || err2 != nil || got != want {
		return nil, dest, fmt.Errorf("git names %s as the repository of %s, expected %s", repo.CommonDir(), dir, common)
	}
	return repo.SandboxObjects(s.gate, s.objectRules(), maxMaskScan), dest, nil
}

// objectRules identifies the gate's rules: the extra sensitive paths and
// this build of Autarch (whose content rules may differ from another's).
func (s *Session) objectRules() string {
	h := sha256.New()
	if bi, ok := debug.ReadBuildInfo(); ok {
		fmt.Fprintln(h, bi.Main.Version)
		for _, st := range bi.Settings {
			if strings.HasPrefix(st.Key, "vcs.") {
				fmt.Fprintln(h, st.Key, st.Value)
			}
		}
	}
	for _, p := range s.cfg.SensitivePaths {
		fmt.Fprintln(h, p)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// missingObject matches git's messages for an object it cannot read.
var missingObject = regexp.MustCompile(`(?i)(unable to read|could not read|bad object|missing blob|invalid object|not a valid object name|loose object [0-9a-f]+ .*is corrupt|error: [0-9a-f]{40} .*missing)\s*([0-9a-f]{40,64})?`)

// objectOID finds object ids in git's error output.
var objectOID = regexp.MustCompile(`\b[0-9a-f]{40}\b|\b[0-9a-f]{64}\b`)

// withheldNote explains a command's failure to read a git object when the
// object is one the filtered store withholds; "" otherwise.
func (s *Session) withheldNote(stderr string) string {
	o := &s.confine.objects
	if o.store == nil || !missingObject.MatchString(stderr) {
		return ""
	}
	for _, oid := range objectOID.FindAllString(stderr, 8) {
		if reason, ok := o.store.Withheld(oid); ok {
			return fmt.Sprintf("Autarch: git object %s is withheld from commands: it is a secret file's content (%s). No command can read it, in any commit; do not work around this. If the task needs that content, ask the user.", oid, reason)
		}
	}
	return "Autarch: if git could not read an object, it may be withheld from commands: the content of secret files (those the secret gate blocks, such as .env files, keys and credentials) is removed from the object store commands see, in every commit. Limit the command to other paths (git log -p -- <path>), or ask the user for that content."
}

// cleanFiles are the tracked files of the root whose content the filtered
// object store already found clean (git.SandboxObjects.CleanFiles); nil
// when the store is not in use or not current (updated is false: its
// Update failed) or cannot tell.
func (s *Session) cleanFiles(ctx context.Context, updated bool) map[string]bool {
	o := &s.confine.objects
	if !updated || o.store == nil || o.err != nil {
		return nil
	}
	clean, err := o.store.CleanFiles(ctx, s.root.Dir())
	if err != nil {
		slog.Warn("sandbox: which files are clean blobs is unknown; they are read", "err", err)
		return nil
	}
	return clean
}
