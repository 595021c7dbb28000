package shellcmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxGlobNames bounds the programs a globbed command name is resolved to.
const maxGlobNames = 64

// globCommands returns the programs a command name given as a glob can
// run, as the shell would expand it: /usr/bin/cur[l] and /usr/*/curl are
// curl, c?rl is every program in a PATH or system directory whose name
// matches (a file named curl in the working directory makes c?rl expand to
// curl, which the shell then looks up in PATH). pattern is in
// filepath.Match syntax.
func globCommands(pattern string) []string {
	dir, base := "", pattern
	if i := strings.LastIndexByte(pattern, '/'); i >= 0 {
		dir, base = pattern[:i+1], pattern[i+1:]
	}
	if _, err := filepath.Match(base, ""); err != nil {
		return nil
	}
	if !hasGlob(base) {
		name := unquoteGlob(base)
		if name == "" {
			return nil
		}
		return []string{name}
	}
	var dirs []string
	if dir != "" && hasGlob(dir) {
		matches, _ := filepath.Glob(strings.TrimSuffix(dir, "/"))
		dirs = append(dirs, matches...)
	}
	if dir == "" || hasGlob(dir) || !filepath.IsAbs(dir) {
		dirs = append(dirs, filepath.SplitList(os.Getenv("PATH"))...)
		dirs = append(dirs, "/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin")
	} else {
		dirs = append(dirs, unquoteGlob(dir))
	}
	var names []string
	seen := map[string]bool{}
	for _, d := range dirs {
		if seen[d] || d == "" {
			continue
		}
		seen[d] = true
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if ok, _ := filepath.Match(base, e.Name()); ok && !slices.Contains(names, e.Name()) {
				names = append(names, e.Name())
				if len(names) == maxGlobNames {
					return names
				}
			}
		}
	}
	slices.Sort(names)
	return names
}

// hasGlob reports an unescaped glob character in a pattern.
func hasGlob(p string) bool {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// unquoteGlob removes a pattern's escapes.
func unquoteGlob(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			i++
		}
		b.WriteByte(p[i])
	}
	return b.String()
}
