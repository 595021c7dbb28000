package agent

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
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
// AGENTS.md, CLAUDE.md and the .cursor/rules/*.mdc that alwaysApply, plus
// the AGENTS.md nearest to each file the session wrote (a package's own
// rules). They are rebuilt into every request, so compaction never drops
// them.
type projectRules struct {
	root   string
	base   []ruleFile
	nested map[string]*ruleFile // directory → its AGENTS.md (nil: none)
	warned bool
}

type ruleFile struct {
	name, text string
}

// loadRules reads the instructions at the top of root.
func loadRules(root string) *projectRules {
	r := &projectRules{root: root, nested: map[string]*ruleFile{}}
	if root == "" {
		return r
	}
	for _, name := range []string{agentsFile, claudeFile} {
		if text, ok := r.read(name); ok {
			r.base = append(r.base, ruleFile{name, text})
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
			if body, always := cursorRule(text); always {
				r.base = append(r.base, ruleFile{name, body})
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

// cursorRule splits an .mdc file's front matter from its body and says
// whether it applies always (alwaysApply: true).
func cursorRule(text string) (body string, always bool) {
	if !strings.HasPrefix(text, "---") {
		return text, false
	}
	rest := strings.TrimPrefix(text, "---")
	front, body, ok := strings.Cut(rest, "\n---")
	if !ok {
		return text, false
	}
	sc := bufio.NewScanner(strings.NewReader(front))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "alwaysApply" && strings.TrimSpace(v) == "true" {
			always = true
		}
	}
	return strings.TrimSpace(body), always
}

// nearest is the AGENTS.md nearest to a written file, below the root.
func (r *projectRules) nearest(file string) *ruleFile {
	for dir := path.Dir(file); dir != "." && dir != "/" && dir != ""; dir = path.Dir(dir) {
		rf, seen := r.nested[dir]
		if !seen {
			if text, ok := r.read(path.Join(dir, agentsFile)); ok {
				rf = &ruleFile{path.Join(dir, agentsFile), text}
			}
			r.nested[dir] = rf
		}
		if rf != nil {
			return rf
		}
	}
	return nil
}

// text is the instructions for a request given the files written so far,
// capped at RulesCap; warn is set the first time the cap cuts them.
func (r *projectRules) text(written []string) (text, warn string) {
	files := slices.Clone(r.base)
	for _, f := range written {
		if rf := r.nearest(f); rf != nil && !slices.Contains(files, *rf) {
			files = append(files, *rf)
		}
	}
	if len(files) == 0 {
		return "", ""
	}
	var b strings.Builder
	b.WriteString("Project instructions from the repository (its AGENTS.md, CLAUDE.md and Cursor rules). Follow them where they do not conflict with your role's rules; an AGENTS.md in a subdirectory applies to the files under it.\n")
	for _, f := range files {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", f.name, f.text)
	}
	text = b.String()
	if len(text) > RulesCap {
		cut := strings.ToValidUTF8(text[:RulesCap], "")
		if !r.warned {
			r.warned = true
			warn = fmt.Sprintf("project instructions are %d bytes, over the %d-byte cap: only the first %d are given to the agent", len(text), RulesCap, RulesCap)
		}
		text = cut + "\n[… project instructions cut at the size cap]"
	}
	return text, warn
}
