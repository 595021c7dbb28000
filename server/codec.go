package server

import (
	"encoding/json"
	"reflect"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// lspPkg is the import path of the LSP types, whose unions need the
// protocol package's own encoder.
const lspPkg = "go.lsp.dev/protocol"

// codec marshals LSP types with go.lsp.dev/protocol's union-aware encoder
// and everything else (our autarch/* payloads) with encoding/json.
type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case nil:
		return []byte("null"), nil
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case json.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	}
	if isLSPType(v) {
		return protocol.Marshal(v)
	}
	return json.Marshal(v)
}

func (codec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append((*p)[:0], data...)
		return nil
	}
	if isLSPType(v) {
		return protocol.Unmarshal(data, v)
	}
	return json.Unmarshal(data, v)
}

func isLSPType(v any) bool {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t.PkgPath() == lspPkg
}
