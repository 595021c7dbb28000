package scripted

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Leaks reports every request the model received that carries one of the
// secret values (by name), as sent or reversed, in the raw body, in its
// decoded strings (escapes cannot hide a value; tool arguments, which are
// JSON inside a string, are decoded too) or in those strings with all
// white space removed (a value folded over lines). One line per leak.
func (s *Server) Leaks(secrets map[string]string) []string {
	names := make([]string, 0, len(secrets))
	for name := range secrets {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []string
	for i, body := range s.Bodies() {
		text := requestText(body)
		flat := strings.Join(strings.Fields(text), "")
		for _, name := range names {
			v := secrets[name]
			for _, needle := range []string{v, reverse(v)} {
				if strings.Contains(string(body), needle) || strings.Contains(text, needle) || strings.Contains(flat, needle) {
					out = append(out, fmt.Sprintf("request %d carries the %s %s", i+1, name, excerpt(text, needle)))
				}
			}
		}
	}
	return out
}

// requestText is every string of a JSON body, decoded, one per line.
func requestText(body []byte) string {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return string(body)
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x)
			b.WriteByte('\n')
			var inner any
			if json.Unmarshal([]byte(x), &inner) == nil {
				if _, ok := inner.(string); !ok {
					walk(inner)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

func reverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

// excerpt shows where needle sits in text.
func excerpt(text, needle string) string {
	i := strings.Index(text, needle)
	if i < 0 {
		return "(folded over lines, or in the raw body)"
	}
	return fmt.Sprintf("(…%s…)", text[max(0, i-60):min(len(text), i+len(needle)+20)])
}

// Received reports whether any request the model received carries s in
// its decoded text.
func (s *Server) Received(sub string) bool {
	for _, body := range s.Bodies() {
		if strings.Contains(requestText(body), sub) {
			return true
		}
	}
	return false
}
