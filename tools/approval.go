package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	gitdiff "github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/autarch-dev/autarch/tools/shellcmd"
)

// ErrAborted is returned (wrapped) by Engine.Call when the user answers a
// confirmation with "abort all": the agent's turn ends and the run stops
// (a workflow is stopped, resumable from its last durable point).
var ErrAborted = errors.New("the user aborted the run at a confirmation")

// abortedMessage is the aborted call's result.
const abortedMessage = "Aborted by the user: the whole run stops here"

// refusedUnasked is why a call is refused before anyone is asked: with
// allowed_only, a command classified dangerous (spec: rejected without
// reaching confirmation); "" when the call may go on.
func (s *Session) refusedUnasked(name string, ca callArgs) string {
	if name == "shell" && s.cfg.AllowedOnly && shellcmd.Analyze(ca.Command).Class == shellcmd.Dangerous {
		return allowedOnlyRefusal
	}
	return ""
}

// allowedOnlyRefusal is the spec's refusal of a dangerous command under allowed_only.
const allowedOnlyRefusal = "Command classified as 'dangerous' and allowed_only=True"

// approvalDetail is what the user approves of a call: the unified diff of
// the file for a file edit (write_file, edit_file, multi_edit,
// apply_patch), the command for a command, else the arguments as sent.
// An edit that cannot be previewed (a blocked path, text not found) shows
// its arguments: the call then fails with the reason when it runs.
func (s *Session) approvalDetail(name string, args json.RawMessage, ca callArgs) string {
	if ca.Command != "" {
		return ca.Command
	}
	if d, ok := s.editPreview(name, args); ok {
		return d
	}
	return string(args)
}

// editPreview is the unified diff an edit call would make, computed in
// memory; ok is false for other tools or when the edit cannot apply.
func (s *Session) editPreview(name string, args json.RawMessage) (string, bool) {
	var path string
	var edit func(before string) (string, bool)
	switch name {
	case "write_file":
		var p writeFileParams
		if json.Unmarshal(args, &p) != nil {
			return "", false
		}
		path, edit = p.Path, func(before string) (string, bool) {
			if p.appending() {
				return before + p.Content, true
			}
			return p.Content, true
		}
	case "edit_file":
		var p editFileParams
		if json.Unmarshal(args, &p) != nil || p.OldString == "" {
			return "", false
		}
		path, edit = p.Path, func(before string) (string, bool) {
			after, _, err := applyEdit(before, p.OldString, p.NewString, p.ReplaceAll)
			return after, err == nil
		}
	case "multi_edit":
		var p multiEditParams
		if json.Unmarshal(args, &p) != nil {
			return "", false
		}
		path, edit = p.Path, func(before string) (string, bool) {
			after, _, ok := applyEdits(before, p.Edits)
			return after, ok
		}
	case "apply_patch":
		var p applyPatchParams
		if json.Unmarshal(args, &p) != nil {
			return "", false
		}
		path, edit = p.Path, func(before string) (string, bool) {
			files, err := parsePatch(p.Patch)
			if err != nil || len(files) != 1 {
				return "", false
			}
			after, err := applyHunks(before, files[0].hunks)
			return after, err == nil
		}
	default:
		return "", false
	}
	rel, _, ok := s.resolve(path)
	if !ok {
		return "", false
	}
	before, exists := "", true
	if _, err := s.root.Stat(rel); errors.Is(err, fs.ErrNotExist) {
		exists = false
	} else if before, _, ok = s.readText(rel, path); !ok {
		return "", false
	}
	after, ok := edit(before)
	if !ok {
		return "", false
	}
	return UnifiedDiff(rel, before, after, exists), true
}

// diffContext is the number of unchanged lines around each change.
const diffContext = 3

// maxDiffLines bounds a rendered diff; the rest is counted.
const maxDiffLines = 400

// UnifiedDiff renders the change of a file from before to after as a
// unified diff (git's shape: a/ and b/ prefixes, /dev/null for a file
// that did not exist); an unchanged file renders as a one-line note.
func UnifiedDiff(path, before, after string, existed bool) string {
	if before == after && existed {
		return fmt.Sprintf("%s: no change\n", path)
	}
	type line struct {
		op   byte // ' ', '-' or '+'
		text string
	}
	var lines []line
	for _, d := range gitdiff.Do(before, after) {
		op := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = '-'
		case diffmatchpatch.DiffInsert:
			op = '+'
		}
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l != "" {
				lines = append(lines, line{op, l})
			}
		}
	}
	var b strings.Builder
	from := "a/" + path
	if !existed {
		from = "/dev/null"
	}
	fmt.Fprintf(&b, "--- %s\n+++ b/%s\n", from, path)
	written := 0
	oldNo, newNo := 1, 1 // line numbers of lines[i]
	for i := 0; i < len(lines); {
		if lines[i].op == ' ' {
			oldNo, newNo, i = oldNo+1, newNo+1, i+1
			continue
		}
		// A hunk: diffContext lines before the change, then until
		// 2*diffContext unchanged lines in a row (or the end).
		start := max(0, i-diffContext)
		oldStart, newStart := oldNo-(i-start), newNo-(i-start)
		end, same := i, 0
		for end < len(lines) && same <= 2*diffContext {
			if lines[end].op == ' ' {
				same++
			} else {
				same = 0
			}
			end++
		}
		end -= max(0, same-diffContext) // trailing context
		var oldLen, newLen int
		for _, l := range lines[start:end] {
			if l.op != '+' {
				oldLen++
			}
			if l.op != '-' {
				newLen++
			}
		}
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", span(oldStart, oldLen), span(newStart, newLen))
		for _, l := range lines[start:end] {
			if written == maxDiffLines {
				fmt.Fprintf(&b, "… the diff continues (%d lines in all)\n", len(lines))
				return b.String()
			}
			written++
			b.WriteByte(l.op)
			b.WriteString(l.text)
			if !strings.HasSuffix(l.text, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
		for _, l := range lines[i:end] {
			if l.op != '+' {
				oldNo++
			}
			if l.op != '-' {
				newNo++
			}
		}
		i = end
	}
	return b.String()
}

// span is a hunk range: "start,len" ("start" for one line; an empty range
// starts at the line before it, as diff -u writes it).
func span(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start-1)
	case 1:
		return fmt.Sprintf("%d", start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
