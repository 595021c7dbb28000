package team

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace"
	"github.com/autarch-dev/autarch/workspace/unidiff"
)

//go:embed apply_patch.md
var applyPatchDesc string

// apply_patch's error codes (coding-team-tools.md).
const (
	CodeInvalidPatch   = "invalid_patch"
	CodeApplyError     = "apply_error"
	CodeLimitsExceeded = "limits_exceeded"
)

type applyPatchParams struct {
	Reason string `json:"reason"`
	Patch  string `json:"patch" jsonschema:"Unified diff of one or more files (--- a/path, +++ b/path, @@ -a,b +c,d @@ hunks; /dev/null for created and deleted files)"`
	DryRun bool   `json:"dryRun,omitempty" jsonschema:"Validate without applying"`
}

func newApplyPatch(job Job) tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectEdit, Category: tools.CategoryMutating}, "apply_patch", applyPatchDesc, tools.Write, func(ctx context.Context, s *tools.Session, p applyPatchParams) (tools.Result, error) {
		mode := Genius
		if job != nil {
			mode = job.Mode()
		}
		res := applyPatch(s, mode, p.Patch, p.DryRun)
		return res, report(ctx, "apply_patch", res)
	})
}

// report tells the job's event sink (ToolContext.LogEvent) the outcome of
// a mutating call: kind "applied" or "refused", with the result's fields.
func report(ctx context.Context, tool string, res tools.Result) error {
	var data map[string]any
	json.Unmarshal([]byte(res.Output), &data)
	kind := "applied"
	if res.Failed {
		kind = "refused"
	}
	if err := tools.ToolContextFrom(ctx).Event(ctx, tools.ToolEvent{Tool: tool, Kind: kind, Data: data}); err != nil {
		return fmt.Errorf("recording the %s event: %w", tool, err)
	}
	return nil
}

// change is one file's new state, computed before anything is written.
type change struct {
	rel     string
	data    []byte
	remove  bool
	existed bool
	old     []byte
}

// ApplyPatch validates and applies a multi-file unified diff in the
// session's root, all or nothing; the result is apply_patch's. In mechanic
// mode a patch may change at most MechanicMaxFiles files and
// MechanicMaxLines lines. It never panics, whatever the patch.
func applyPatch(s *tools.Session, mode Mode, patch string, dryRun bool) tools.Result {
	zero := map[string]any{"applied": false, "filesModified": 0, "linesChanged": 0}
	files, err := unidiff.ParsePatch(patch)
	if err != nil {
		return failure(CodeInvalidPatch, "the patch is not a valid unified diff: "+err.Error(), zero)
	}
	lines := 0
	for _, f := range files {
		if f.Path() == "" {
			return failure(CodeInvalidPatch, "the patch has no file headers: start each file's hunks with --- a/<path> and +++ b/<path> lines", zero)
		}
		if f.Binary {
			return failure(CodeInvalidPatch, f.Path()+": binary patches are not supported; change text files only", zero)
		}
		lines += f.LinesChanged()
	}
	touched := touchedFiles(files)
	if mode == Mechanic && (len(touched) > MechanicMaxFiles || lines > MechanicMaxLines) {
		return failure(CodeLimitsExceeded, fmt.Sprintf("mechanic mode allows at most %d files and %d changed lines per patch; this one changes %d files and %d lines: split it into smaller patches", MechanicMaxFiles, MechanicMaxLines, len(touched), lines), zero)
	}
	changes, res, ok := plan(s, files)
	if !ok {
		return res
	}
	out := map[string]any{"applied": !dryRun, "filesModified": len(touched), "linesChanged": lines}
	if dryRun {
		out["dryRun"] = true
		return tools.JSONResult(out, false)
	}
	if err := commitChanges(s.Root(), changes); err != nil {
		return failure(CodeApplyError, "writing the patch failed and every file was restored: "+err.Error(), zero)
	}
	for _, c := range changes {
		if !c.remove {
			s.MarkRead(c.rel)
		}
	}
	return tools.JSONResult(out, false)
}

// touchedFiles are the distinct paths a patch changes (both sides of a rename).
func touchedFiles(files []unidiff.FilePatch) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		for _, p := range []string{f.OldPath, f.NewPath} {
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// plan computes every file's new content in memory; ok false means res
// says why the patch is refused (nothing written).
func plan(s *tools.Session, files []unidiff.FilePatch) ([]change, tools.Result, bool) {
	zero := map[string]any{"applied": false, "filesModified": 0, "linesChanged": 0}
	var out []change
	pending := map[string]int{} // rel → index in out
	get := func(rel string) (data []byte, exists bool, msg string) {
		if i, ok := pending[rel]; ok {
			return out[i].data, !out[i].remove, ""
		}
		fi, err := s.Root().Lstat(rel)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, ""
		}
		if err != nil {
			return nil, false, err.Error()
		}
		if !fi.Mode().IsRegular() {
			return nil, false, rel + " is not a regular file"
		}
		_, data, res, ok := s.ReadText(rel)
		if !ok {
			return nil, false, rel + ": " + res.Output
		}
		return data, true, ""
	}
	put := func(c change) {
		if i, ok := pending[c.rel]; ok {
			c.old, c.existed = out[i].old, out[i].existed
			out[i] = c
			return
		}
		pending[c.rel] = len(out)
		out = append(out, c)
	}
	for _, f := range files {
		oldRel, newRel, msg := paths(s, f)
		if msg != "" {
			return nil, failure(CodeApplyError, msg, zero), false
		}
		var content []byte
		if !f.Created {
			data, exists, msg := get(oldRel)
			if msg != "" {
				return nil, failure(CodeApplyError, msg, zero), false
			}
			if !exists {
				return nil, failure(CodeApplyError, f.OldPath+" does not exist; to create a file use --- /dev/null", zero), false
			}
			put(change{rel: oldRel, data: data, existed: true, old: data})
			content = data
		} else if _, exists, msg := get(newRel); msg != "" || exists {
			if msg == "" {
				msg = f.NewPath + " already exists; patch it with --- a/" + f.NewPath + " instead of /dev/null"
			}
			return nil, failure(CodeApplyError, msg, zero), false
		}
		updated, err := unidiff.Apply(string(content), f.Edits)
		if err != nil {
			return nil, failure(CodeApplyError, f.Path()+": "+err.Error()+"; read the file again and rebuild the hunk from its current text", zero), false
		}
		switch {
		case f.Deleted:
			if updated != "" {
				return nil, failure(CodeApplyError, f.OldPath+": the deletion's hunks do not remove the whole file", zero), false
			}
			put(change{rel: oldRel, remove: true})
		case oldRel != "" && oldRel != newRel:
			put(change{rel: oldRel, remove: true})
			put(change{rel: newRel, data: []byte(updated)})
		default:
			put(change{rel: newRel, data: []byte(updated)})
		}
	}
	return out, tools.Result{}, true
}

// paths confines a file patch's paths to the root and refuses .git,
// protected and sensitive paths; msg says why it is refused.
func paths(s *tools.Session, f unidiff.FilePatch) (oldRel, newRel, msg string) {
	for _, p := range []struct {
		given string
		rel   *string
	}{{f.OldPath, &oldRel}, {f.NewPath, &newRel}} {
		if p.given == "" {
			continue
		}
		rel, err := s.Root().Clean(p.given)
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

// commitChanges writes every change (each file atomically: temporary file
// and rename) and, when one fails, restores the files already changed.
func commitChanges(root *workspace.Root, cs []change) error {
	for i, c := range cs {
		var err error
		if c.remove {
			err = root.Remove(c.rel)
		} else {
			err = root.WriteFile(c.rel, c.data)
		}
		if err != nil {
			return errors.Join(err, rollback(root, cs[:i]))
		}
	}
	return nil
}

// rollback restores the files of applied changes.
func rollback(root *workspace.Root, done []change) error {
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
