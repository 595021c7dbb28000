package index

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"strings"
	"sync"
)

// Chunk bounds.
const (
	maxChunkLines = 120
	minChunkLines = 8
)

// Chunk is a span of a file indexed as one unit.
type Chunk struct {
	Start, End int    // 1-based, inclusive
	Symbols    string // declared names, space separated
}

// ChunkFile splits a file into chunks: Go at declaration boundaries (with
// go/parser), Markdown at headings, other text at blank-line-separated
// blocks; no chunk is longer than maxChunkLines.
func ChunkFile(rel string, data []byte) []Chunk {
	lines := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		lines++
	}
	if lines == 0 {
		return nil
	}
	var cs []Chunk
	switch strings.ToLower(path.Ext(rel)) {
	case ".go":
		cs = chunkGo(data, lines)
	case ".md", ".markdown":
		cs = chunkMarkdown(data, lines)
	}
	if cs == nil {
		cs = chunkBlocks(data, lines)
		nameDeclarations(data, cs)
	}
	return bound(cs)
}

// chunkGo makes one chunk per top-level declaration (with its doc comment);
// the package clause and imports form the first chunk.
func chunkGo(data []byte, lines int) []Chunk {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", data, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil && f == nil {
		return nil
	}
	var cs []Chunk
	next := 1
	add := func(start, end int, syms string) {
		if start < next {
			start = next
		}
		if end < start {
			return
		}
		if start > next {
			cs = append(cs, Chunk{Start: next, End: start - 1}) // glue between declarations
		}
		cs = append(cs, Chunk{Start: start, End: end, Symbols: syms})
		next = end + 1
	}
	for _, d := range f.Decls {
		start := fset.Position(d.Pos()).Line
		end := fset.Position(d.End()).Line
		var syms []string
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Doc != nil {
				start = fset.Position(d.Doc.Pos()).Line
			}
			name := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) > 0 {
				name = recvName(d.Recv.List[0].Type) + " " + name
			}
			syms = append(syms, name)
		case *ast.GenDecl:
			if d.Doc != nil {
				start = fset.Position(d.Doc.Pos()).Line
			}
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					syms = append(syms, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						syms = append(syms, n.Name)
					}
				}
			}
		}
		add(start, end, strings.Join(syms, " "))
	}
	if next <= lines {
		cs = append(cs, Chunk{Start: next, End: lines})
	}
	return mergeSmall(cs)
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return ""
}

// chunkMarkdown starts a chunk at every heading.
func chunkMarkdown(data []byte, lines int) []Chunk {
	var cs []Chunk
	start := 1
	for i, l := range bytes.Split(data, []byte{'\n'}) {
		n := i + 1
		if n > 1 && bytes.HasPrefix(l, []byte("#")) {
			cs = append(cs, Chunk{Start: start, End: n - 1, Symbols: heading(data, start)})
			start = n
		}
	}
	cs = append(cs, Chunk{Start: start, End: lines, Symbols: heading(data, start)})
	return cs
}

func heading(data []byte, line int) string {
	ls := bytes.SplitN(data, []byte{'\n'}, line+1)
	if line-1 < len(ls) && bytes.HasPrefix(ls[line-1], []byte("#")) {
		return strings.TrimSpace(strings.TrimLeft(string(ls[line-1]), "# "))
	}
	return ""
}

// chunkBlocks splits at blank lines that end a top-level block (a line
// starting at column 0 after the blank), then merges small blocks.
func chunkBlocks(data []byte, lines int) []Chunk {
	var cs []Chunk
	start := 1
	ls := bytes.Split(data, []byte{'\n'})
	for i := 1; i < len(ls) && i < lines; i++ {
		prevBlank := len(bytes.TrimSpace(ls[i-1])) == 0
		topLevel := len(ls[i]) > 0 && ls[i][0] != ' ' && ls[i][0] != '\t' && ls[i][0] != '}' && ls[i][0] != ')'
		if prevBlank && topLevel && i+1 > start {
			cs = append(cs, Chunk{Start: start, End: i})
			start = i + 1
		}
	}
	cs = append(cs, Chunk{Start: start, End: lines})
	return mergeSmall(cs)
}

// mergeSmall joins chunks shorter than minChunkLines with their neighbour
// while the result stays within maxChunkLines.
func mergeSmall(cs []Chunk) []Chunk {
	var out []Chunk
	for _, c := range cs {
		if n := len(out); n > 0 {
			last := &out[n-1]
			small := c.End-c.Start+1 < minChunkLines || last.End-last.Start+1 < minChunkLines
			if small && c.End-last.Start+1 <= maxChunkLines {
				last.End = c.End
				last.Symbols = strings.TrimSpace(last.Symbols + " " + c.Symbols)
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// bound splits chunks longer than maxChunkLines.
func bound(cs []Chunk) []Chunk {
	var out []Chunk
	for _, c := range cs {
		for c.End-c.Start+1 > maxChunkLines {
			out = append(out, Chunk{Start: c.Start, End: c.Start + maxChunkLines - 1, Symbols: c.Symbols})
			c.Start += maxChunkLines
		}
		out = append(out, c)
	}
	return out
}

// declaration finds named definitions in most languages.
var declaration = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[ \t]*(?:export\s+)?(?:pub(?:\([a-z]+\))?\s+)?(?:async\s+)?(?:def|class|function|fn|func|sub|interface|struct|enum|trait|impl|module|type)\s+([A-Za-z_][A-Za-z0-9_]*)`)
})

// nameDeclarations sets each chunk's symbols to the names it defines.
func nameDeclarations(data []byte, cs []Chunk) {
	lineStarts := []int{0}
	for i, b := range data {
		if b == '\n' {
			lineStarts = append(lineStarts, i+1)
		}
	}
	for i := range cs {
		from := lineStarts[min(cs[i].Start-1, len(lineStarts)-1)]
		to := len(data)
		if cs[i].End < len(lineStarts) {
			to = lineStarts[cs[i].End]
		}
		var names []string
		for _, m := range declaration().FindAllSubmatch(data[from:to], 20) {
			names = append(names, string(m[1]))
		}
		if len(names) > 0 {
			cs[i].Symbols = strings.Join(names, " ")
		}
	}
}
