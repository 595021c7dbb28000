package index

import (
	"strings"
	"unicode"
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
			emit(p)
		}
	})
	if !stopwords[whole] && len(whole) > 1 {
		emit(whole)
	}
}

// splitIdentifier calls fn for each part of an identifier, lower-cased.
func splitIdentifier(id string, fn func(string)) {
	var parts []string
	cur := 0
	runes := []rune(id)
	for i := 1; i <= len(runes); i++ {
		boundary := i == len(runes)
		if !boundary {
			prev, r := runes[i-1], runes[i]
			switch {
			case r == '_' || prev == '_':
				boundary = true
			case unicode.IsLower(prev) && unicode.IsUpper(r):
				boundary = true
			case unicode.IsDigit(prev) != unicode.IsDigit(r):
				boundary = true
			case unicode.IsUpper(prev) && unicode.IsUpper(r) && i+1 < len(runes) && unicode.IsLower(runes[i+1]):
				boundary = true // HTTPServer → HTTP, Server
			}
		}
		if boundary {
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
