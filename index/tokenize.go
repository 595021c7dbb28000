package index

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// stopwords are dropped from queries and documents: English function words
// and the words every code search query carries.
var stopwords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "in": true, "on": true, "for": true, "and": true, "or": true,
	"is": true, "are": true, "be": true, "by": true, "with": true, "as": true, "at": true, "it": true, "this": true, "that": true,
	"from": true, "how": true, "do": true, "does": true, "i": true, "we": true, "you": true, "can": true, "into": true, "if": true,
	"python": true, "use": true, "using": true, "get": true, "way": true, "what": true, "which": true, "when": true, "not": true,
}

// Tokens splits text into lower-case terms: each identifier is kept whole
// and also split at camelCase, snake_case and digit boundaries
// ("parseHTTPHeader" → parsehttpheader, parse, http, header).
func Tokens(text string, emit func(string)) {
	start := -1
	for i, r := range text {
		word := r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			identifier(text[start:i], emit)
			start = -1
		}
	}
	if start >= 0 {
		identifier(text[start:], emit)
	}
}

// identifier emits an identifier whole and its parts.
func identifier(id string, emit func(string)) {
	if len(id) > 64 {
		return // hashes, data blobs
	}
	whole := strings.ToLower(strings.Trim(id, "_"))
	if whole == "" {
		return
	}
	splitIdentifier(id, func(p string) {
		if p != whole && !stopwords[p] && len(p) > 1 {
			emit(stemString(p))
		}
	})
	if !stopwords[whole] && len(whole) > 1 {
		emit(stemString(whole))
	}
}

// splitIdentifier calls fn for each part of an identifier, lower-cased.
func splitIdentifier(id string, fn func(string)) {
	var parts []string
	cur := 0
	runes := []rune(id)
	for i := 1; i <= len(runes); i++ {
		if partEnds(runes, i) {
			p := strings.Trim(string(runes[cur:i]), "_")
			if p != "" {
				parts = append(parts, strings.ToLower(p))
			}
			cur = i
		}
	}
	for _, p := range parts {
		fn(p)
	}
}

// partEnds reports whether a part of the identifier id ends before id[i]
// (i == len(id): the last part ends there): at an underscore, between a
// lower-case and an upper-case letter, between a digit and a letter, and
// before the last capital of an acronym followed by a lower-case letter
// (HTTPServer → HTTP, Server). Tokens splits the runes of an identifier
// with it, the indexing tokenizer the bytes of an ASCII one.
func partEnds[T rune | byte](id []T, i int) bool {
	if i == len(id) {
		return true
	}
	prev, r := rune(id[i-1]), rune(id[i])
	switch {
	case r == '_' || prev == '_':
		return true
	case unicode.IsLower(prev) && unicode.IsUpper(r):
		return true
	case unicode.IsDigit(prev) != unicode.IsDigit(r):
		return true
	}
	return unicode.IsUpper(prev) && unicode.IsUpper(r) && i+1 < len(id) && unicode.IsLower(rune(id[i+1]))
}

// pathTokens splits a slash path into terms (directories and the file name
// without its extension).
func pathTokens(path string, emit func(string)) {
	for _, seg := range strings.Split(path, "/") {
		if i := strings.LastIndexByte(seg, '.'); i > 0 {
			seg = seg[:i]
		}
		Tokens(seg, emit)
	}
}

// tokenizer is the allocation-free form of Tokens for indexing: it emits
// terms as byte slices that are valid until the next emit.
type tokenizer struct {
	whole, part []byte
}

func isWordByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// tokens emits the same terms as Tokens(string(text), ...).
func (tk *tokenizer) tokens(text []byte, emit func([]byte)) {
	n := len(text)
	for i := 0; i < n; {
		b := text[i]
		if b < utf8RuneSelf && !isWordByte(b) {
			i++
			continue
		}
		// An identifier: ASCII word bytes and non-ASCII letters or digits.
		start, ascii := i, true
		for i < n {
			b = text[i]
			if b < utf8RuneSelf {
				if !isWordByte(b) {
					break
				}
				i++
				continue
			}
			r, size := utf8.DecodeRune(text[i:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			ascii = false
			i += size
		}
		if start == i {
			_, size := utf8.DecodeRune(text[i:]) // a non-word rune
			i += size
			continue
		}
		if ascii {
			tk.identifier(text[start:i], emit)
		} else {
			identifier(string(text[start:i]), func(s string) { emit([]byte(s)) })
		}
	}
}

const utf8RuneSelf = 0x80

func lowerByte(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// identifier is the ASCII form of the package-level identifier.
func (tk *tokenizer) identifier(id []byte, emit func([]byte)) {
	if len(id) > 64 {
		return
	}
	s, e := 0, len(id)
	for s < e && id[s] == '_' {
		s++
	}
	for e > s && id[e-1] == '_' {
		e--
	}
	if s == e {
		return
	}
	tk.whole = tk.whole[:0]
	for _, b := range id[s:e] {
		tk.whole = append(tk.whole, lowerByte(b))
	}
	cur := 0
	for i := 1; i <= len(id); i++ {
		if partEnds(id, i) {
			p := id[cur:i]
			cur = i
			if len(p) < 2 || p[0] == '_' {
				continue // single characters and underscores
			}
			tk.part = tk.part[:0]
			for _, b := range p {
				tk.part = append(tk.part, lowerByte(b))
			}
			if string(tk.part) != string(tk.whole) && !isStopword(tk.part) {
				emit(stem(tk.part))
			}
		}
	}
	if len(tk.whole) > 1 && !isStopword(tk.whole) {
		emit(stem(tk.whole))
	}
}

func stemString(s string) string {
	if b := stem([]byte(s)); len(b) != len(s) || string(b) != s {
		return string(b)
	}
	return s
}

// maxStopword is the length of the longest stopword.
var maxStopword = func() int {
	n := 0
	for w := range stopwords {
		n = max(n, len(w))
	}
	return n
}()

func isStopword(b []byte) bool { return len(b) <= maxStopword && stopwords[string(b)] }
