package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// repoFile reads a file of the repository (tests run in cmd/autarch).
func repoFile(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// section is the text of a "## title" section of a Markdown document, up
// to the next heading of level 2.
func section(t *testing.T, doc, title string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n## "+title+"\n")
	if !ok {
		t.Fatalf("no section %q", "## "+title)
	}
	body, _, _ := strings.Cut(rest, "\n## ")
	return body
}

var backticked = regexp.MustCompile("`([^`\\n]+)`")

// architectureTable parses the package table of docs/architecture.md: each
// row's package (first cell) and the packages it may import (the
// backticked names of its last cell).
func architectureTable(t *testing.T) map[string][]string {
	t.Helper()
	body := section(t, repoFile(t, "docs/architecture.md"), "Packages and their direction")
	table := map[string][]string{}
	for _, line := range strings.Split(body, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) < 2 {
			t.Fatalf("docs/architecture.md: a row without cells: %s", line)
		}
		pkg := strings.Trim(strings.TrimSpace(cells[0]), "`")
		if _, dup := table[pkg]; dup {
			t.Errorf("docs/architecture.md: %s has two rows", pkg)
		}
		imports := []string{}
		for _, m := range backticked.FindAllStringSubmatch(cells[len(cells)-1], -1) {
			imports = append(imports, m[1])
		}
		table[pkg] = imports
	}
	return table
}

// TestArchitectureDocMatchesAllowList: docs/architecture.md's package
// table is deps_test.go's allow-list, package by package and import by
// import.
func TestArchitectureDocMatchesAllowList(t *testing.T) {
	doc := architectureTable(t)
	for pkg, allow := range allowed {
		got, ok := doc[pkg]
		if !ok {
			t.Errorf("package %s is in the allow-list (cmd/autarch/deps_test.go) but has no row in docs/architecture.md's package table: add one", pkg)
			continue
		}
		want := slices.Sorted(slices.Values(allow))
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("docs/architecture.md says %s may import %v; the allow-list says %v: make them agree", pkg, got, want)
		}
	}
	for pkg := range doc {
		if _, ok := allowed[pkg]; !ok {
			t.Errorf("docs/architecture.md has a row for %s, which the allow-list (cmd/autarch/deps_test.go) does not know", pkg)
		}
	}
}

// TestArchitectureDocNamesTopLevel: every top-level directory of the
// repository (tracked, or new and not ignored) is named in
// docs/architecture.md.
func TestArchitectureDocNamesTopLevel(t *testing.T) {
	out, err := exec.Command("git", "-C", "../..", "ls-files", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	doc := repoFile(t, "docs/architecture.md")
	named := map[string]bool{}
	for _, m := range backticked.FindAllStringSubmatch(doc, -1) {
		top, _, _ := strings.Cut(m[1], "/")
		named[top] = true
	}
	seen := map[string]bool{}
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		top, _, nested := strings.Cut(f, "/")
		if !nested || strings.HasPrefix(top, ".") || seen[top] {
			continue
		}
		seen[top] = true
		if !named[top] {
			t.Errorf("the top-level directory %s is not named (in backticks) in docs/architecture.md: say what it holds", top)
		}
	}
	if len(seen) == 0 {
		t.Fatal("git ls-files listed no directory")
	}
}

// TestReadmeShort: the README is what a user needs first; the manual is
// under docs/.
func TestReadmeShort(t *testing.T) {
	const most = 250
	if n := strings.Count(repoFile(t, "README.md"), "\n"); n > most {
		t.Errorf("README.md has %d lines, at most %d: move detail to docs/manual.md", n, most)
	}
}

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpan  = regexp.MustCompile("`[^`]*`")
	slugDrops = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// anchors returns the GitHub anchors of a Markdown document's headings.
func anchors(doc string) map[string]bool {
	out := map[string]bool{}
	count := map[string]int{}
	inFence := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		slug := strings.ReplaceAll(slugDrops.ReplaceAllString(strings.ToLower(title), ""), " ", "-")
		if n := count[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		count[slug]++
	}
	return out
}

// TestDocLinksResolve: every link between the README, CONTRIBUTING and
// docs/ points at a file that exists and, with a #fragment, at one of its
// headings.
func TestDocLinksResolve(t *testing.T) {
	files := []string{"README.md", "CONTRIBUTING.md"}
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		files = append(files, "docs/"+filepath.Base(d))
	}
	links := 0
	for _, file := range files {
		doc := repoFile(t, file)
		inFence := false
		for i, line := range strings.Split(doc, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inFence = !inFence
				continue
			}
			if inFence {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				path, frag, _ := strings.Cut(target, "#")
				rel := file
				if path != "" {
					rel = filepath.ToSlash(filepath.Join(filepath.Dir(file), path))
					if _, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(rel))); err != nil {
						t.Errorf("%s:%d: the link %s points at %s, which does not exist", file, i+1, target, rel)
						continue
					}
				}
				if frag != "" && strings.HasSuffix(rel, ".md") && !anchors(repoFile(t, rel))[frag] {
					t.Errorf("%s:%d: the link %s names no heading of %s", file, i+1, target, rel)
				}
			}
		}
	}
	if links == 0 {
		t.Fatal("no internal link found: the parser is broken")
	}
}
