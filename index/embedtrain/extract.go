// Package embedtrain trains the code embedder the index ships
// (index.TrainedEmbedder): it extracts self-supervised (text, code) pairs
// from source trees present on the machine (Go doc comment → declaration,
// Python docstring → function, function name → body, comment → the lines
// after it), initialises term vectors from a PPMI-SVD of the pairs' text
// and trains them with a symmetric in-batch InfoNCE loss. Pure Go,
// deterministic for a seed.
package embedtrain

import (
	"bytes"
	"context"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Pair is one training example: a natural-language or name-like text and
// the code it describes.
type Pair struct {
	Query, Code string
	Kind        string // doc, name, comment
}

// Source is a tree of source files to extract pairs from.
type Source struct {
	Name string
	Dir  string
	Lang string // "go" or "python"
	// MaxPairs caps the pairs taken (0: all), in walk order.
	MaxPairs int
}

// maxCodeLines caps a pair's code (the index's chunks are about 60 lines).
const maxCodeLines = 60

// Extract walks a source's tree and returns its pairs, skipping test data,
// vendored copies and duplicates of pairs already in seen (by text).
func Extract(ctx context.Context, src Source, seen map[uint64]bool) ([]Pair, error) {
	ext := map[string]string{"go": ".go", "python": ".py"}[src.Lang]
	var out []Pair
	err := filepath.WalkDir(src.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: skipped
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if src.MaxPairs > 0 && len(out) >= src.MaxPairs {
			return filepath.SkipAll
		}
		name := d.Name()
		if d.IsDir() {
			if name == "testdata" || name == "vendor" || name == "node_modules" || name == "__pycache__" || (strings.HasPrefix(name, ".") && p != src.Dir) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ext) || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || len(data) > 1<<20 {
			return nil
		}
		rel, _ := filepath.Rel(src.Dir, p)
		var pairs []Pair
		if src.Lang == "go" {
			pairs = goPairs(filepath.ToSlash(rel), data)
		} else {
			pairs = pythonPairs(filepath.ToSlash(rel), data)
		}
		for _, pr := range pairs {
			h := fnv.New64a()
			h.Write([]byte(pr.Query))
			h.Write([]byte{0})
			h.Write([]byte(pr.Code))
			if k := h.Sum64(); !seen[k] {
				seen[k] = true
				out = append(out, pr)
			}
		}
		return nil
	})
	if src.MaxPairs > 0 && len(out) > src.MaxPairs {
		out = out[:src.MaxPairs]
	}
	return out, err
}

var goDecl = regexp.MustCompile(`^(func|type) (\([^)]*\) )?([A-Za-z_][A-Za-z0-9_]*)`)

// goPairs takes each top-level func or type with a doc comment (the
// comment → the declaration, the file's path on top) and each comment
// inside code (→ the lines after it).
func goPairs(rel string, data []byte) []Pair {
	lines := strings.Split(string(data), "\n")
	var out []Pair
	for i, l := range lines {
		m := goDecl.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		j := i
		for j > 0 && strings.HasPrefix(lines[j-1], "//") {
			j--
		}
		var doc []string
		for _, c := range lines[j:i] {
			if c = strings.TrimPrefix(c, "//"); !strings.HasPrefix(c, "go:") && !strings.HasPrefix(c, "line ") {
				doc = append(doc, strings.TrimSpace(c))
			}
		}
		end := i
		if strings.HasSuffix(strings.TrimSpace(l), "{") || strings.HasSuffix(strings.TrimSpace(l), "(") {
			for end < len(lines)-1 && lines[end] != "}" && lines[end] != ")" {
				end++
			}
		}
		code := rel + "\n" + strings.Join(lines[i:min(end+1, i+maxCodeLines)], "\n")
		if q := docQuery(doc, m[3]); q != "" {
			out = append(out, Pair{Query: q, Code: code, Kind: "doc"})
		}
	}
	return append(out, commentPairs(rel, lines, "//")...)
}

// docQuery is a doc comment's first paragraph without the declared name
// starting it ("Foo returns …" → "returns …"); "" when too short.
func docQuery(doc []string, name string) string {
	var words []string
	for _, l := range doc {
		if l == "" {
			if len(words) > 0 {
				break
			}
			continue
		}
		words = append(words, strings.Fields(l)...)
	}
	for len(words) > 0 && (words[0] == name || words[0] == "A" || words[0] == "An" || words[0] == "The" || words[0] == "Deprecated:") {
		words = words[1:]
	}
	if len(words) < 3 {
		return ""
	}
	return strings.Join(words[:min(len(words), 60)], " ")
}

// commentPairs pairs each block of full-line comments of at least three
// words with the code lines that follow it (up to a blank line, at most 8).
func commentPairs(rel string, lines []string, prefix string) []Pair {
	var out []Pair
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(t, prefix) || strings.HasPrefix(lines[i], prefix) && prefix == "//" {
			continue // Go's top-level comments are doc comments
		}
		var words []string
		j := i
		for ; j < len(lines); j++ {
			c := strings.TrimSpace(lines[j])
			if !strings.HasPrefix(c, prefix) {
				break
			}
			c = strings.TrimSpace(strings.TrimPrefix(c, prefix))
			if strings.HasPrefix(c, "!") || strings.HasPrefix(c, "-*-") || strings.HasPrefix(c, "noqa") || strings.HasPrefix(c, "type:") || strings.HasPrefix(c, "pragma") || strings.HasPrefix(c, "go:") || strings.HasPrefix(c, "nolint") {
				continue
			}
			words = append(words, strings.Fields(c)...)
		}
		k := j
		for k < len(lines) && k < j+8 && strings.TrimSpace(lines[k]) != "" && !strings.HasPrefix(strings.TrimSpace(lines[k]), prefix) {
			k++
		}
		if len(words) >= 3 && k > j && len(words) <= 80 {
			out = append(out, Pair{Query: strings.Join(words, " "), Code: rel + "\n" + strings.Join(lines[j:k], "\n"), Kind: "comment"})
		}
		i = j - 1
	}
	return out
}

var pyDef = regexp.MustCompile(`^(\s*)(?:async\s+)?def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

// pythonPairs takes each function's docstring (→ the function without it),
// its name when it has several words (→ the body without the def line) and
// each comment block (→ the lines after it).
func pythonPairs(rel string, data []byte) []Pair {
	lines := strings.Split(string(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))), "\n")
	var out []Pair
	for i := 0; i < len(lines); i++ {
		m := pyDef.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, name := len(m[1]), m[2]
		sig := i
		for sig < len(lines)-1 && sig < i+10 && !strings.HasSuffix(strings.TrimSpace(stripPyComment(lines[sig])), ":") {
			sig++
		}
		end := sig + 1
		for end < len(lines) {
			l := lines[end]
			if strings.TrimSpace(l) != "" && len(l)-len(strings.TrimLeft(l, " \t")) <= indent {
				break
			}
			end++
		}
		for end > sig+1 && strings.TrimSpace(lines[end-1]) == "" {
			end--
		}
		body := lines[sig+1 : end]
		doc, rest := pyDocstring(body)
		if len(rest) == 0 {
			continue
		}
		code := rel + "\n" + strings.Join(lines[i:sig+1], "\n") + "\n" + strings.Join(rest[:min(len(rest), maxCodeLines)], "\n")
		if q := docQuery(doc, name); q != "" {
			out = append(out, Pair{Query: q, Code: code, Kind: "doc"})
		}
		if words := strings.FieldsFunc(strings.Trim(name, "_"), func(r rune) bool { return r == '_' }); len(words) >= 2 && !strings.HasPrefix(name, "test") {
			out = append(out, Pair{Query: strings.Join(words, " "), Code: rel + "\n" + strings.Join(rest[:min(len(rest), maxCodeLines)], "\n"), Kind: "name"})
		}
	}
	return append(out, commentPairs(rel, lines, "#")...)
}

// pyDocstring splits a function body into its docstring's lines and the
// rest.
func pyDocstring(body []string) (doc, rest []string) {
	i := 0
	for i < len(body) && strings.TrimSpace(body[i]) == "" {
		i++
	}
	if i == len(body) {
		return nil, nil
	}
	t := strings.TrimLeft(strings.TrimSpace(body[i]), "rRuUbB")
	var q string
	for _, d := range []string{`"""`, `'''`} {
		if strings.HasPrefix(t, d) {
			q = d
		}
	}
	if q == "" {
		return nil, body[i:]
	}
	t = t[3:]
	for j := i; j < len(body); j++ {
		if j > i {
			t = strings.TrimSpace(body[j])
		}
		if k := strings.Index(t, q); k >= 0 {
			doc = append(doc, t[:k])
			return doc, body[j+1:]
		}
		doc = append(doc, t)
	}
	return doc, nil
}

func stripPyComment(l string) string {
	if i := strings.Index(l, "#"); i >= 0 {
		return l[:i]
	}
	return l
}
