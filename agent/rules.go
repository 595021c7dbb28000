package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// RulesCap bounds the project instructions given to an agent, in bytes;
// beyond it they are cut, with a warning.
const RulesCap = 32 << 10

// Project instruction files, the common formats other agents read.
const (
	agentsFile = "AGENTS.md"
	claudeFile = "CLAUDE.md"
	cursorDir  = ".cursor/rules"
)

// projectRules are a workspace's project instructions: the root
// AGENTS.md, CLAUDE.md and the .cursor/rules/*.mdc that alwaysApply; the
// .mdc rules whose globs match a file in play; and the AGENTS.md nearest
// to each file in play (a package's own rules). Files in play are those
// the session read or wrote and those its task expects to change (a
// pulse's expected changes). They are rebuilt into every request, so
// compaction never drops them.
type projectRules struct {
	root    string
	base    []ruleFile
	globbed []ruleFile // .mdc rules applied when a file in play matches
	// manual are .mdc rules that neither alwaysApply nor name globs:
	// found, never given (Cursor applies them on request only).
	manual []ruleFile
	nested map[string]*ruleFile // directory → its AGENTS.md (nil: none)
	warned bool
}

type ruleFile struct {
	name, text string
	globs      []string
	size       int
}

// loadRules reads the instructions at the top of root.
func loadRules(root string) *projectRules {
	r := &projectRules{root: root, nested: map[string]*ruleFile{}}
	if root == "" {
		return r
	}
	for _, name := range []string{agentsFile, claudeFile} {
		if text, ok := r.read(name); ok {
			r.base = append(r.base, ruleFile{name: name, text: text, size: len(text)})
		}
	}
	if rt, err := os.OpenRoot(root); err == nil {
		names, _ := fs.Glob(rt.FS(), cursorDir+"/*.mdc")
		rt.Close()
		slices.Sort(names)
		for _, name := range names {
			text, ok := r.read(name)
			if !ok {
				continue
			}
			c := parseCursorRule(text)
			rf := ruleFile{name: name, text: c.body, globs: c.globs, size: len(text)}
			switch {
			case c.always:
				r.base = append(r.base, rf)
			case len(c.globs) > 0:
				r.globbed = append(r.globbed, rf)
			default:
				r.manual = append(r.manual, rf)
			}
		}
	}
	return r
}

// read reads a file inside root (symlinks out of it refused); ok is false
// when it is absent, empty or unreadable.
func (r *projectRules) read(name string) (string, bool) {
	rt, err := os.OpenRoot(r.root)
	if err != nil {
		return "", false
	}
	defer rt.Close()
	fi, err := rt.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	data, err := rt.ReadFile(name)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	text := strings.TrimSpace(string(data))
	return text, text != ""
}

// cursorRule is an .mdc file: front matter (description, globs,
// alwaysApply) and body.
type cursorRule struct {
	body   string
	always bool
	globs  []string
}

// parseCursorRule splits an .mdc file's front matter from its body. The
// front matter is read line by line rather than as YAML: Cursor writes
// globs unquoted (globs: *.ts, src/**), which YAML reads as an alias.
// globs is a comma-separated string, a [list] or a "- item" block.
func parseCursorRule(text string) cursorRule {
	if !strings.HasPrefix(text, "---") {
		return cursorRule{body: text}
	}
	front, body, ok := strings.Cut(strings.TrimPrefix(text, "---"), "\n---")
	if !ok {
		return cursorRule{body: text}
	}
	c := cursorRule{body: strings.TrimSpace(body)}
	inGlobs := false
	for _, line := range strings.Split(front, "\n") {
		trimmed := strings.TrimSpace(line)
		if inGlobs && strings.HasPrefix(trimmed, "- ") {
			c.globs = append(c.globs, globList(strings.TrimPrefix(trimmed, "- "))...)
			continue
		}
		inGlobs = false
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "alwaysApply":
			c.always = strings.TrimSpace(v) == "true"
		case "globs":
			c.globs = globList(v)
			inGlobs = strings.TrimSpace(v) == ""
		}
	}
	return c
}

// globList splits a globs value: "a, b", "[a, b]", "\"a\"".
func globList(v string) []string {
	v = strings.TrimSpace(v)
	v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
	var out []string
	for _, g := range strings.Split(v, ",") {
		g = strings.Trim(strings.TrimSpace(g), `"'`)
		if g != "" && doublestar.ValidatePattern(g) {
			out = append(out, g)
		}
	}
	return out
}

// matches reports whether one of the rule's globs matches a file in play.
// A glob without a slash matches a file's name in any directory (Cursor's
// "*.ts"); others match the path from the root.
func (rf ruleFile) matches(files []string) bool {
	for _, g := range rf.globs {
		for _, f := range files {
			if ok, _ := doublestar.Match(g, f); ok {
				return true
			}
			if !strings.Contains(g, "/") {
				if ok, _ := doublestar.Match(g, path.Base(f)); ok {
					return true
				}
			}
		}
	}
	return false
}

// nearest is the AGENTS.md nearest to a file in play, below the root.
func (r *projectRules) nearest(file string) *ruleFile {
	for dir := path.Dir(file); dir != "." && dir != "/" && dir != ""; dir = path.Dir(dir) {
		rf, seen := r.nested[dir]
		if !seen {
			if text, ok := r.read(path.Join(dir, agentsFile)); ok {
				rf = &ruleFile{name: path.Join(dir, agentsFile), text: text, size: len(text)}
			}
			r.nested[dir] = rf
		}
		if rf != nil {
			return rf
		}
	}
	return nil
}

// inForce are the rule files that apply given the files in play, in the
// order they are given: the root's, the matching .mdc rules, then each
// file's nearest AGENTS.md.
func (r *projectRules) inForce(inPlay []string) []ruleFile {
	files := slices.Clone(r.base)
	for _, rf := range r.globbed {
		if rf.matches(inPlay) {
			files = append(files, rf)
		}
	}
	for _, f := range inPlay {
		if rf := r.nearest(f); rf != nil && !slices.ContainsFunc(files, func(x ruleFile) bool { return x.name == rf.name }) {
			files = append(files, *rf)
		}
	}
	return files
}

// text is the instructions for a request given the files in play, capped
// at RulesCap; warn is set the first time the cap cuts them.
func (r *projectRules) text(inPlay []string) (text, warn string) {
	text = render(r.inForce(inPlay))
	if len(text) > RulesCap {
		if !r.warned {
			r.warned = true
			warn = capWarning(len(text))
		}
		text = strings.ToValidUTF8(text[:RulesCap], "") + "\n[… project instructions cut at the size cap]"
	}
	return text, warn
}

// render is the instructions message of files ("" for none).
func render(files []ruleFile) string {
	if len(files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Project instructions from the repository (its AGENTS.md, CLAUDE.md and Cursor rules). Follow them where they do not conflict with your role's rules. An AGENTS.md in a subdirectory applies to the files under it and, where it disagrees with the root's, wins for those files.\n")
	for _, f := range files {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", f.name, f.text)
	}
	return b.String()
}

func capWarning(size int) string {
	return fmt.Sprintf("project instructions are %d bytes, over the %d-byte cap: only the first %d are given to the agent (shorten AGENTS.md, CLAUDE.md or the Cursor rules)", size, RulesCap, RulesCap)
}

// RuleFile is one project instruction file found in a workspace, for the
// side panel and `autarch status`.
type RuleFile struct {
	// Path is relative to the workspace root.
	Path string `json:"path"`
	// Size is the file's size in bytes (front matter included).
	Size int `json:"size"`
	// Applies says when agents get it: "always", "when a file in play
	// matches GLOBS", "for files under DIR", or "never (no alwaysApply or
	// globs)".
	Applies string `json:"applies"`
}

// ProjectRules lists the project instruction files of the workspace at
// root (every nested AGENTS.md included, up to a bound) and warns when the
// ones always given already pass the size cap.
func ProjectRules(root string) (files []RuleFile, warnings []string) {
	r := loadRules(root)
	for _, rf := range r.base {
		files = append(files, RuleFile{Path: rf.name, Size: rf.size, Applies: "always"})
	}
	for _, rf := range r.globbed {
		files = append(files, RuleFile{Path: rf.name, Size: rf.size, Applies: "when a file in play matches " + strings.Join(rf.globs, ", ")})
	}
	for _, name := range nestedAgents(root) {
		if rf := r.nearest(name); rf != nil && rf.name == name {
			files = append(files, RuleFile{Path: name, Size: rf.size, Applies: "for files under " + path.Dir(name) + "/"})
		}
	}
	for _, rf := range r.manual {
		files = append(files, RuleFile{Path: rf.name, Size: rf.size, Applies: "never (no alwaysApply or globs)"})
	}
	if n := len(render(r.base)); n > RulesCap {
		warnings = append(warnings, capWarning(n))
	}
	return files, warnings
}

// maxNestedScan bounds the directories ProjectRules walks for AGENTS.md.
const maxNestedScan = 5000

// nestedAgents finds the AGENTS.md files below root (not the root's),
// skipping hidden directories, node_modules and vendor.
func nestedAgents(root string) []string {
	rt, err := os.OpenRoot(root)
	if err != nil {
		return nil
	}
	defer rt.Close()
	var out []string
	dirs := 0
	fs.WalkDir(rt.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			dirs++
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "vendor") || dirs > maxNestedScan {
				return fs.SkipDir
			}
			return nil
		}
		if d.Name() == agentsFile && p != agentsFile {
			out = append(out, p)
		}
		return nil
	})
	return out
}
