package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/autarch-dev/autarch/workspace"
	"github.com/autarch-dev/autarch/workspace/unidiff"
)

// PatchPlan is a multi-file unified diff computed in memory against the
// session's root: every file's new state, nothing written yet.
type PatchPlan struct {
	changes []fileChange
}

// fileChange is one file's new state.
type fileChange struct {
	rel     string
	data    []byte
	remove  bool
	existed bool
	old     []byte
}

// Files are the paths (relative to the root) the plan writes or removes.
func (p PatchPlan) Files() []string {
	out := make([]string, len(p.changes))
	for i, c := range p.changes {
		out[i] = c.rel
	}
	return out
}

// PlanPatch computes every file's new content for a parsed multi-file
// patch (creations from /dev/null, deletions, renames), refusing paths
// outside the root, in .git, protected or sensitive; msg says why the
// patch is refused ("" when it applies). With readFirst an existing file
// must have been read in the session (the pulsing tools' rule).
func (s *Session) PlanPatch(files []unidiff.FilePatch, readFirst bool) (plan PatchPlan, msg string) {
	var out []fileChange
	pending := map[string]int{} // rel → index in out
	get := func(rel string) (data []byte, exists bool, msg string) {
		if i, ok := pending[rel]; ok {
			return out[i].data, !out[i].remove, ""
		}
		fi, err := s.root.Lstat(rel)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, ""
		}
		if err != nil {
			return nil, false, err.Error()
		}
		if !fi.Mode().IsRegular() {
			return nil, false, rel + " is not a regular file"
		}
		if readFirst && !s.WasRead(rel) {
			return nil, false, "You must read " + rel + " with read_file before patching it"
		}
		_, data, res, ok := s.ReadText(rel)
		if !ok {
			return nil, false, rel + ": " + res.Output
		}
		return data, true, ""
	}
	put := func(c fileChange) {
		if i, ok := pending[c.rel]; ok {
			c.old, c.existed = out[i].old, out[i].existed
			out[i] = c
			return
		}
		pending[c.rel] = len(out)
		out = append(out, c)
	}
	for _, f := range files {
		if f.Path() == "" {
			return PatchPlan{}, "the patch has no file headers: start each file's hunks with --- a/<path> and +++ b/<path> lines"
		}
		if f.Binary {
			return PatchPlan{}, f.Path() + ": binary patches are not supported; change text files only"
		}
		oldRel, newRel, msg := s.patchPaths(f)
		if msg != "" {
			return PatchPlan{}, msg
		}
		var content []byte
		if !f.Created {
			data, exists, msg := get(oldRel)
			if msg != "" {
				return PatchPlan{}, msg
			}
			if !exists {
				return PatchPlan{}, f.OldPath + " does not exist; to create a file use --- /dev/null"
			}
			put(fileChange{rel: oldRel, data: data, existed: true, old: data})
			content = data
		} else if _, exists, msg := get(newRel); msg != "" || exists {
			if msg == "" {
				msg = f.NewPath + " already exists; patch it with --- a/" + f.NewPath + " instead of /dev/null"
			}
			return PatchPlan{}, msg
		}
		updated, err := unidiff.Apply(string(content), f.Edits)
		if err != nil {
			return PatchPlan{}, f.Path() + ": " + err.Error() + "; read the file again and rebuild the hunk from its current text"
		}
		switch {
		case f.Deleted:
			if updated != "" {
				return PatchPlan{}, f.OldPath + ": the deletion's hunks do not remove the whole file"
			}
			put(fileChange{rel: oldRel, remove: true})
		case oldRel != "" && oldRel != newRel:
			put(fileChange{rel: oldRel, remove: true})
			put(fileChange{rel: newRel, data: []byte(updated)})
		default:
			put(fileChange{rel: newRel, data: []byte(updated)})
		}
	}
	return PatchPlan{changes: out}, ""
}

// patchPaths confines a file patch's paths to the root and refuses .git,
// protected and sensitive paths; msg says why it is refused.
func (s *Session) patchPaths(f unidiff.FilePatch) (oldRel, newRel, msg string) {
	for _, p := range []struct {
		given string
		rel   *string
	}{{f.OldPath, &oldRel}, {f.NewPath, &newRel}} {
		if p.given == "" {
			continue
		}
		rel, err := s.root.Clean(p.given)
		if err != nil {
			return "", "", err.Error()
		}
		if rel == "." || inGitDir(rel) {
			return "", "", fmt.Sprintf("%s: patches may not touch git's files (.git)", p.given)
		}
		if why := s.WriteRefused(rel); why != "" {
			return "", "", fmt.Sprintf("%s may not be patched: %s", p.given, why)
		}
		*p.rel = rel
	}
	return oldRel, newRel, ""
}

// inGitDir reports a path with a .git component (any case).
func inGitDir(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if strings.EqualFold(part, ".git") {
			return true
		}
	}
	return false
}

// ApplyPatchPlan writes every change of a plan (each file atomically:
// temporary file and rename) and, when one fails, restores the files
// already changed; the files written count as read.
func (s *Session) ApplyPatchPlan(p PatchPlan) error {
	for i, c := range p.changes {
		var err error
		if c.remove {
			err = s.root.Remove(c.rel)
		} else {
			err = s.root.WriteFile(c.rel, c.data)
		}
		if err != nil {
			return errors.Join(err, rollback(s.root, p.changes[:i]))
		}
	}
	for _, c := range p.changes {
		if !c.remove {
			s.MarkRead(c.rel)
			s.markWritten(c.rel)
		}
	}
	return nil
}

// rollback restores the files of applied changes.
func rollback(root *workspace.Root, done []fileChange) error {
	var errs []error
	for i := len(done) - 1; i >= 0; i-- {
		c := done[i]
		switch {
		case c.existed:
			errs = append(errs, root.WriteFile(c.rel, c.old))
		default:
			if err := root.Remove(c.rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			removeEmptyParents(root, c.rel)
		}
	}
	return errors.Join(errs...)
}

// removeEmptyParents removes the directories a created file left empty.
func removeEmptyParents(root *workspace.Root, rel string) {
	for dir := path.Dir(rel); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if root.Remove(dir) != nil {
			return
		}
	}
}
