package server

import (
	"encoding/json"
	"testing"
)

// TestDecodeEmptyParams: null, nothing and an empty array (how Lua clients
// such as Neovim encode an empty table) are no params; anything else must
// fit the type.
func TestDecodeEmptyParams(t *testing.T) {
	tests := []struct {
		raw string
		ok  bool
	}{
		{"", true}, {"null", true}, {"[]", true}, {" [ ] ", true}, {"{}", true},
		{`{"query":"x"}`, true}, {"[1]", false}, {`"x"`, false},
	}
	for _, tt := range tests {
		var v struct {
			Query string `json:"query"`
		}
		if err := decode(json.RawMessage(tt.raw), &v); (err == nil) != tt.ok {
			t.Errorf("decode(%q) = %v, want ok=%v", tt.raw, err, tt.ok)
		}
	}
}
