package index

import (
	"bytes"
)

// analyzer turns a file into per-chunk term counts; one per worker, its
// maps are reused from file to file.
type analyzer struct {
	tk     tokenizer
	slot   map[string]int32
	intern map[string]string
	cur    []termCount
	field  int
	addFn  func([]byte)
	path   []string
}

func newAnalyzer() *analyzer {
	a := &analyzer{slot: map[string]int32{}, intern: map[string]string{}}
	a.addFn = func(b []byte) { a.add(a.field, b) }
	return a
}

// maxInterned bounds an analyzer's table of shared term strings.
const maxInterned = 1 << 18

func (a *analyzer) add(field int, b []byte) {
	i, ok := a.slot[string(b)]
	if !ok {
		s, ok := a.intern[string(b)]
		if !ok {
			s = string(b)
			if len(a.intern) < maxInterned {
				a.intern[s] = s
			}
		}
		i = int32(len(a.cur))
		a.slot[s] = i
		a.cur = append(a.cur, termCount{Term: s})
	}
	if c := &a.cur[i].N[field]; *c < 1<<16-1 {
		*c++
	}
}

// analyseContent chunks and tokenizes one file.
func (a *analyzer) analyse(rel string, data []byte, hash [16]byte) *doc {
	d := &doc{rel: rel, hash: hash, prior: prior(rel, data), chunks: ChunkFile(rel, data)}
	a.path = a.path[:0]
	pathTokens(rel, func(t string) { a.path = append(a.path, t) })
	lineStarts := make([]int, 1, bytes.Count(data, []byte{'\n'})+2)
	for i, b := range data {
		if b == '\n' {
			lineStarts = append(lineStarts, i+1)
		}
	}
	lineStarts = append(lineStarts, len(data))
	for _, c := range d.chunks {
		clear(a.slot)
		a.cur = a.cur[:0]
		for _, t := range a.path {
			a.add(fieldPath, []byte(t))
		}
		a.field = fieldSymbol
		a.tk.tokens([]byte(c.Symbols), a.addFn)
		var cs commentState
		for l := c.Start; l <= c.End && l < len(lineStarts); l++ {
			line := data[lineStarts[l-1]:lineStarts[l]]
			a.field = cs.field(line)
			a.tk.tokens(line, a.addFn)
		}
		d.terms = append(d.terms, append([]termCount(nil), a.cur...))
	}
	return d
}

// commentState tracks block comments and docstrings across lines.
type commentState struct {
	block  bool   // inside /* */
	triple []byte // inside a """ or ''' docstring
}

var (
	tripleDouble = []byte(`"""`)
	tripleSingle = []byte(`'''`)
)

// field classifies a line as comment/docstring (fieldDoc) or code.
func (cs *commentState) field(line []byte) int {
	t := bytes.TrimLeft(line, " \t")
	switch {
	case cs.triple != nil:
		if bytes.Contains(t, cs.triple) {
			cs.triple = nil
		}
		return fieldDoc
	case cs.block:
		if bytes.Contains(t, []byte("*/")) {
			cs.block = false
		}
		return fieldDoc
	case bytes.HasPrefix(t, []byte("//")), bytes.HasPrefix(t, []byte("#")):
		return fieldDoc
	case bytes.HasPrefix(t, []byte("/*")):
		cs.block = !bytes.Contains(t[2:], []byte("*/"))
		return fieldDoc
	}
	for _, q := range [][]byte{tripleDouble, tripleSingle} {
		u := bytes.TrimLeft(t, "rRuUbB")
		if bytes.HasPrefix(u, q) {
			if !bytes.Contains(u[3:], q) {
				cs.triple = q
			}
			return fieldDoc
		}
	}
	return fieldBody
}
