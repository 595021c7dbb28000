package workflow

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestStoredArgs(t *testing.T) {
	long := strings.Repeat("é", maxStoredArg) // 2 bytes a rune: the cut falls inside one
	tests := []struct {
		name, in string
		want     func(stored string) bool
	}{
		{"none", "", func(s string) bool { return s == "{}" }},
		{"small, kept as the model wrote it", `{"path":"a.go",  "reason":"r"}`, func(s string) bool { return s == `{"path":"a.go",  "reason":"r"}` }},
		{"not JSON, kept as a string", `{"path": "a.go"`, func(s string) bool { return s == `"{\"path\": \"a.go\""` }},
		{"a long content cut, the path whole", `{"path":"a.go","content":"` + long + `","edits":[{"new":"` + long + `"}]}`, func(s string) bool {
			var v struct {
				Path    string `json:"path"`
				Content string `json:"content"`
				Edits   []struct {
					New string `json:"new"`
				} `json:"edits"`
			}
			return json.Unmarshal([]byte(s), &v) == nil && v.Path == "a.go" && len(s) < 3*maxStoredArg &&
				strings.HasSuffix(v.Content, "…[2000 more bytes]") && strings.HasPrefix(v.Content, strings.Repeat("é", maxStoredArg/2)) &&
				len(v.Edits) == 1 && strings.HasSuffix(v.Edits[0].New, "more bytes]")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := storedArgs(json.RawMessage(tt.in))
			if !json.Valid(got) || !tt.want(string(got)) {
				t.Errorf("storedArgs(%.80q) = %.200s", tt.in, got)
			}
		})
	}
}
