package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/autarch-dev/autarch/workspace/unidiff"
)

// Plan is what a dry run recorded, in the order the calls were made: the
// writes and commands that were not executed.
type Plan []DryRunEntry

// dryRunArgs are the arguments of the built-in write tools that the plan
// describes.
type dryRunArgs struct {
	Path       string          `json:"path"`
	Content    *string         `json:"content"`
	Mode       string          `json:"mode"`
	OldString  string          `json:"oldString"`
	NewString  string          `json:"newString"`
	ReplaceAll bool            `json:"replaceAll"`
	Edits      []EditOperation `json:"edits"`
	Patch      string          `json:"patch"`
	Command    string          `json:"command"`
	Pattern    string          `json:"pattern"`
	Fix        bool            `json:"fix"`
}

// plannedEntry makes the record of a call not executed in a dry run: what
// it would have done, in words, from its arguments and the files on disk
// (and the files this plan already wrote or deleted).
func (s *Session) plannedEntry(name string, args json.RawMessage, reason string) DryRunEntry {
	var a dryRunArgs
	json.Unmarshal(args, &a)
	e := DryRunEntry{Tool: name, Args: args, Reason: reason}
	rel := a.Path
	if r, err := s.root.Clean(a.Path); err == nil && a.Path != "" {
		rel = r
	}
	switch name {
	case "write_file":
		n := lines(textOf(a.Content))
		e.Path, e.Change = rel, fmt.Sprintf("written (%s)", count(n, "line"))
		state := s.plannedState(rel)
		switch {
		case a.Mode == writeAppend && state != "deleted" && (state != "" || s.exists(rel)):
			e.Action, e.Change = fmt.Sprintf("would append %s to %s", count(n, "line"), rel), fmt.Sprintf("appended (%s)", count(n, "line"))
		case state == "deleted" || state == "" && !s.exists(rel):
			e.Action, e.Change = fmt.Sprintf("would write %s (%s, new file)", rel, count(n, "line")), fmt.Sprintf("new file (%s)", count(n, "line"))
			s.setPlannedState(rel, "written")
		default:
			e.Action = fmt.Sprintf("would overwrite %s (%s)", rel, count(n, "line"))
		}
	case "edit_file":
		e.Path, e.Change = rel, replaceWords(a.OldString, a.NewString, a.ReplaceAll)
		e.Action = fmt.Sprintf("would edit %s: %s", rel, replaceWords(a.OldString, a.NewString, a.ReplaceAll))
	case "multi_edit":
		parts := make([]string, len(a.Edits))
		for i, op := range a.Edits {
			parts[i] = replaceWords(op.OldString, op.NewString, op.ReplaceAll)
		}
		e.Path, e.Change = rel, count(len(a.Edits), "edit")
		e.Action = fmt.Sprintf("would edit %s: %s (%s)", rel, count(len(a.Edits), "edit"), strings.Join(parts, "; "))
	case "apply_patch":
		add, del := patchCounts(a.Patch)
		if a.Path == "" {
			rel = patchFiles(a.Patch)
		}
		e.Path, e.Change = rel, fmt.Sprintf("patched (+%d −%d)", add, del)
		e.Action = fmt.Sprintf("would apply a patch to %s (+%d −%d)", rel, add, del)
	case "delete_file":
		e.Path, e.Change, e.Action = rel, "deleted", "would delete "+rel
		s.setPlannedState(rel, "deleted")
	case "shell":
		e.Action = fmt.Sprintf("would run `%s` (%s)", oneLine(a.Command), classify(a.Command))
	case "run_tests":
		e.Action = "would run the project's tests" + where(a.Path) + matching(a.Pattern)
	case "run_lint":
		e.Action = "would run the project's linters" + where(a.Path)
		if a.Fix {
			e.Action += ", fixing what they can (files may change)"
		}
	case "read_lints":
		e.Action = "would run the project's linters to read their findings" + where(a.Path)
	default:
		e.Action = fmt.Sprintf("would call %s(%s)", name, callArgsText(args))
	}
	return e
}

// plannedState is "written" or "deleted" for a file this plan changed.
func (s *Session) plannedState(rel string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.planned[rel]
}

func (s *Session) setPlannedState(rel, state string) {
	s.mu.Lock()
	s.planned[rel] = state
	s.mu.Unlock()
}

// exists reports whether a path names something in the root.
func (s *Session) exists(rel string) bool {
	if rel == "" {
		return false
	}
	_, err := os.Lstat(s.root.Abs(rel))
	return err == nil
}

func textOf(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// lines counts the lines of a text (a last line without a newline counts).
func lines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// count is "1 line", "3 lines".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// replaceWords says what one replacement does: "replace 3 lines with 5".
func replaceWords(old, new string, all bool) string {
	what := count(lines(old), "line")
	if all {
		what = "every occurrence of " + what
	}
	if new == "" {
		return "delete " + what
	}
	return fmt.Sprintf("replace %s with %d", what, lines(new))
}

// patchCounts counts a unified diff's added and removed lines.
func patchCounts(patch string) (add, del int) {
	for _, l := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "+"):
			add++
		case strings.HasPrefix(l, "-"):
			del++
		}
	}
	return add, del
}

func where(path string) string {
	if path == "" || path == "." {
		return ""
	}
	return " in " + path
}

func matching(pattern string) string {
	if pattern == "" {
		return ""
	}
	return fmt.Sprintf(" matching %q", pattern)
}

// maxPlanText bounds a command or a call's arguments in the plan.
const maxPlanText = 120

// oneLine is a command on one line, cut to maxPlanText.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxPlanText {
		cut := maxPlanText
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// callArgsText is a call's arguments without its reason, as key: value in
// key order.
func callArgsText(args json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return oneLine(string(args))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "reason" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + string(m[k])
	}
	return oneLine(strings.Join(parts, ", "))
}

// Summary is the plan in words: each recorded call as a sentence, in
// order (under its stage's heading when the calls came from a workflow's
// stages), then each file the plan would change with what would happen to
// it.
func (p Plan) Summary() string {
	var b strings.Builder
	if len(p) == 0 {
		b.WriteString("Dry run: no write or command was planned, so nothing would change.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "Dry run: %s planned, none executed; nothing was changed.\n", count(len(p), "action"))
	stage := ""
	indent := "  "
	for i, e := range p {
		if e.Stage != "" && e.Stage != stage {
			stage = e.Stage
			fmt.Fprintf(&b, "%s:\n", stage)
			indent = "    "
		}
		fmt.Fprintf(&b, "%s%d. %s", indent, i+1, e.Action)
		if r := strings.TrimSpace(e.Reason); r != "" {
			fmt.Fprintf(&b, " — %s", oneLine(r))
		}
		b.WriteString("\n")
	}
	files := p.Files()
	if len(files) > 0 {
		b.WriteString("Files that would change:\n")
		for _, f := range files {
			fmt.Fprintf(&b, "  %s: %s\n", f.Path, strings.Join(f.Changes, "; "))
		}
	}
	return b.String()
}

// PlanFile is a file a plan would change and what would happen to it,
// change by change.
type PlanFile struct {
	Path    string
	Changes []string
}

// Files groups the plan's changes per file, files in the order the plan
// first touches them.
func (p Plan) Files() []PlanFile {
	var out []PlanFile
	at := map[string]int{}
	for _, e := range p {
		if e.Path == "" {
			continue
		}
		i, ok := at[e.Path]
		if !ok {
			i = len(out)
			at[e.Path] = i
			out = append(out, PlanFile{Path: e.Path})
		}
		out[i].Changes = append(out[i].Changes, e.Change)
	}
	return out
}

// dryRunLints records read_lints in a dry run that has no editor's
// diagnostics: reading the findings would run the project's linters.
func (s *Session) dryRunLints(p readLintsParams) Result {
	args, _ := json.Marshal(p)
	e := s.plannedEntry("read_lints", args, p.Reason)
	s.recordDryRun(e)
	return jsonResult(map[string]any{"success": true, "dry_run": true, "plan": e.Action, "diagnostics": []any{},
		"message": "[DRY-RUN] the project's linters were not run (no editor diagnostics in this dry run), so no findings are known"}, false)
}

// dryRunRefusal is the answer a file tool gives without touching the
// file: a path outside the root or behind the secret gate, deletion
// disabled. ok is false when the call is refused (it is not planned).
func (s *Session) dryRunRefusal(name string, args json.RawMessage) (res Result, ok bool) {
	switch name {
	case "write_file", "edit_file", "multi_edit", "apply_patch", "delete_file":
	default:
		return Result{}, true
	}
	if name == "delete_file" && !s.cfg.AllowDelete {
		return refusal("Error: deletion disabled. (allow_delete=False in the workspace configuration)"), false
	}
	var a dryRunArgs
	json.Unmarshal(args, &a)
	if name == "apply_patch" && a.Path == "" {
		return s.dryRunPatchRefusal(a.Patch)
	}
	_, res, ok = s.resolve(a.Path)
	return res, ok
}

// dryRunPatchRefusal checks a multi-file patch (the coding-team
// apply_patch names its files only inside the diff): unparsable, or a
// file outside the root or behind the secret gate, refuses it.
func (s *Session) dryRunPatchRefusal(patch string) (Result, bool) {
	files, err := unidiff.ParsePatch(patch)
	if err != nil {
		return opError("Error: invalid_patch: " + err.Error()), false
	}
	for _, f := range files {
		for _, p := range []string{f.OldPath, f.NewPath} {
			if p == "" {
				continue
			}
			if _, res, ok := s.resolve(p); !ok {
				return res, false
			}
		}
	}
	return Result{}, true
}

// patchFiles names the files a multi-file patch changes.
func patchFiles(patch string) string {
	files, err := unidiff.ParsePatch(patch)
	if err != nil || len(files) == 0 {
		return "(unparsable patch)"
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Path()
	}
	return strings.Join(names, ", ")
}
