package langserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Locations decodes a definition or references result: a Location, a list
// of Locations or of LocationLinks, or null.
func Locations(raw json.RawMessage) ([]protocol.Location, error) {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	type either struct {
		protocol.Location
		TargetURI            uri.URI         `json:"targetUri"`
		TargetSelectionRange *protocol.Range `json:"targetSelectionRange"`
	}
	var list []either
	if raw[0] == '{' {
		var one either
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, err
		}
		list = []either{one}
	} else if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	out := make([]protocol.Location, 0, len(list))
	for _, e := range list {
		if e.TargetURI != "" && e.TargetSelectionRange != nil {
			out = append(out, protocol.Location{URI: e.TargetURI, Range: *e.TargetSelectionRange})
			continue
		}
		out = append(out, e.Location)
	}
	return out, nil
}

// Symbol is a document or workspace symbol, flattened: Container names
// the symbol it is inside ("" at the top).
type Symbol struct {
	Name      string
	Kind      string
	Detail    string
	Container string
	Location  protocol.Location
}

type rawSymbol struct {
	Name          string              `json:"name"`
	Kind          protocol.SymbolKind `json:"kind"`
	Detail        string              `json:"detail"`
	ContainerName string              `json:"containerName"`
	Location      *struct {
		URI   uri.URI         `json:"uri"`
		Range *protocol.Range `json:"range"`
	} `json:"location"`
	SelectionRange *protocol.Range `json:"selectionRange"`
	Children       []rawSymbol     `json:"children"`
}

// Symbols decodes a documentSymbol result (DocumentSymbols, flattened,
// in docURI; or SymbolInformation) or a workspace/symbol result.
func Symbols(raw json.RawMessage, docURI uri.URI) ([]Symbol, error) {
	var list []rawSymbol
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	var out []Symbol
	var walk func(rs []rawSymbol, container string)
	walk = func(rs []rawSymbol, container string) {
		for _, r := range rs {
			s := Symbol{Name: r.Name, Kind: SymbolKindName(r.Kind), Detail: r.Detail, Container: container}
			if s.Container == "" {
				s.Container = r.ContainerName
			}
			switch {
			case r.SelectionRange != nil:
				s.Location = protocol.Location{URI: docURI, Range: *r.SelectionRange}
			case r.Location != nil:
				s.Location.URI = r.Location.URI
				if r.Location.Range != nil {
					s.Location.Range = *r.Location.Range
				}
			}
			out = append(out, s)
			walk(r.Children, r.Name)
		}
	}
	walk(list, "")
	return out, nil
}

// SymbolKindName names an LSP symbol kind ("function").
func SymbolKindName(k protocol.SymbolKind) string {
	names := []string{"", "file", "module", "namespace", "package", "class", "method", "property", "field", "constructor",
		"enum", "interface", "function", "variable", "constant", "string", "number", "boolean", "array", "object",
		"key", "null", "enum member", "struct", "event", "operator", "type parameter"}
	if int(k) > 0 && int(k) < len(names) {
		return names[k]
	}
	return fmt.Sprintf("kind %d", k)
}

// HoverText decodes a hover result's contents as text ("" for none).
func HoverText(raw json.RawMessage) string {
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if json.Unmarshal(raw, &h) != nil || len(h.Contents) == 0 {
		return ""
	}
	var text func(json.RawMessage) string
	text = func(c json.RawMessage) string {
		var s string
		if json.Unmarshal(c, &s) == nil {
			return s
		}
		var mc struct {
			Kind     string `json:"kind"`
			Language string `json:"language"`
			Value    string `json:"value"`
		}
		if json.Unmarshal(c, &mc) == nil && mc.Value != "" {
			return mc.Value
		}
		var list []json.RawMessage
		if json.Unmarshal(c, &list) == nil {
			parts := make([]string, 0, len(list))
			for _, x := range list {
				parts = append(parts, text(x))
			}
			return strings.Join(parts, "\n\n")
		}
		return ""
	}
	return strings.TrimSpace(text(h.Contents))
}

// CallItem is a call hierarchy item; Raw is sent back as the server gave it.
type CallItem struct {
	Name           string              `json:"name"`
	Kind           protocol.SymbolKind `json:"kind"`
	Detail         string              `json:"detail"`
	URI            uri.URI             `json:"uri"`
	SelectionRange protocol.Range      `json:"selectionRange"`
	Raw            json.RawMessage     `json:"-"`
}

// CallItems decodes a prepareCallHierarchy result.
func CallItems(raw json.RawMessage) ([]CallItem, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	out := make([]CallItem, 0, len(list))
	for _, r := range list {
		var it CallItem
		if err := json.Unmarshal(r, &it); err != nil {
			return nil, err
		}
		it.Raw = r
		out = append(out, it)
	}
	return out, nil
}

// Call is one caller (incoming) or callee (outgoing) with the ranges of
// the calls (in the caller's file for incoming calls, in the item's file
// for outgoing ones).
type Call struct {
	Item       CallItem
	FromRanges []protocol.Range
}

// Calls decodes an incomingCalls ("from") or outgoingCalls ("to") result.
func Calls(raw json.RawMessage, incoming bool) ([]Call, error) {
	var list []struct {
		From       *CallItem        `json:"from"`
		To         *CallItem        `json:"to"`
		FromRanges []protocol.Range `json:"fromRanges"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	var out []Call
	for _, c := range list {
		it := c.To
		if incoming {
			it = c.From
		}
		if it != nil {
			out = append(out, Call{Item: *it, FromRanges: c.FromRanges})
		}
	}
	return out, nil
}

// FileEdits decodes a WorkspaceEdit into the text edits of each file (by
// path). Creating, renaming or deleting files is refused: a rename that
// needs them is not applied.
func FileEdits(raw json.RawMessage) (map[string][]protocol.TextEdit, error) {
	var we struct {
		Changes         map[uri.URI][]protocol.TextEdit `json:"changes"`
		DocumentChanges []json.RawMessage               `json:"documentChanges"`
	}
	if err := json.Unmarshal(raw, &we); err != nil {
		return nil, err
	}
	out := map[string][]protocol.TextEdit{}
	for u, es := range we.Changes {
		out[u.FsPath()] = append(out[u.FsPath()], es...)
	}
	for _, dc := range we.DocumentChanges {
		var d struct {
			Kind         string  `json:"kind"`
			URI          uri.URI `json:"uri"`
			TextDocument struct {
				URI uri.URI `json:"uri"`
			} `json:"textDocument"`
			Edits []protocol.TextEdit `json:"edits"`
		}
		if err := json.Unmarshal(dc, &d); err != nil {
			return nil, err
		}
		if d.Kind != "" {
			return nil, fmt.Errorf("the edit would %s %s, which Autarch does not apply through a rename", d.Kind, d.URI.FsPath())
		}
		out[d.TextDocument.URI.FsPath()] = append(out[d.TextDocument.URI.FsPath()], d.Edits...)
	}
	return out, nil
}

// ApplyEdits applies non-overlapping text edits (UTF-16 positions) to text.
func ApplyEdits(text string, edits []protocol.TextEdit) (string, error) {
	lines := lineStarts(text)
	type span struct {
		from, to int
		with     string
	}
	spans := make([]span, 0, len(edits))
	for _, e := range edits {
		from, err := Offset(text, lines, e.Range.Start)
		if err != nil {
			return "", err
		}
		to, err := Offset(text, lines, e.Range.End)
		if err != nil {
			return "", err
		}
		if to < from {
			return "", fmt.Errorf("edit range ends before it starts (line %d)", e.Range.Start.Line+1)
		}
		spans = append(spans, span{from, to, e.NewText})
	}
	slices.SortStableFunc(spans, func(a, b span) int { return a.from - b.from })
	var b strings.Builder
	at := 0
	for _, s := range spans {
		if s.from < at {
			return "", fmt.Errorf("edits overlap at byte %d", s.from)
		}
		b.WriteString(text[at:s.from])
		b.WriteString(s.with)
		at = s.to
	}
	b.WriteString(text[at:])
	return b.String(), nil
}

// lineStarts are the byte offsets where each line of text starts.
func lineStarts(text string) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// Offset is the byte offset of an LSP position (UTF-16 character) in text.
func Offset(text string, starts []int, pos protocol.Position) (int, error) {
	if int(pos.Line) >= len(starts) {
		if int(pos.Line) == len(starts) && pos.Character == 0 {
			return len(text), nil
		}
		return 0, fmt.Errorf("position line %d is past the end of the file (%d lines)", pos.Line+1, len(starts))
	}
	start := starts[pos.Line]
	end := len(text)
	if int(pos.Line)+1 < len(starts) {
		end = starts[pos.Line+1] - 1
	}
	return start + ByteColumn(text[start:end], int(pos.Character)), nil
}

// ByteColumn is the byte offset in line of a UTF-16 column (clamped to the
// line's end).
func ByteColumn(line string, utf16Col int) int {
	n := 0
	for i, r := range line {
		if n >= utf16Col {
			return i
		}
		n += utf16.RuneLen(r)
		if r == utf8.RuneError {
			n = max(n, 1)
		}
	}
	return len(line)
}

// UTF16Column is the UTF-16 column of a byte offset in line.
func UTF16Column(line string, byteCol int) int {
	n := 0
	for i, r := range line {
		if i >= byteCol {
			break
		}
		if l := utf16.RuneLen(r); l > 0 {
			n += l
		} else {
			n++
		}
	}
	return n
}
