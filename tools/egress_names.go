package tools

import "unicode/utf8"

// secretName reports whether secretKey matches name, without the regexp
// for ASCII names (most of the keys and words of a blocked file: a PEM
// body's lines, a certificate dump's fields). A name with a non-ASCII
// byte goes to the regexp: under (?i), K (Kelvin) and ſ match k and s.
func secretName(name string) bool {
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			return secretKey().MatchString(name)
		}
	}
	for i := 0; i < len(name); i++ {
		rest := name[i:]
		switch lower(name[i]) {
		case 'k':
			if hasPrefixFold(rest, "key") {
				return true
			}
		case 't':
			if hasPrefixFold(rest, "token") {
				return true
			}
		case 's':
			if hasPrefixFold(rest, "secret") || hasPrefixFold(rest, "session") || hasPrefixFold(rest, "signature") || hasPrefixFold(rest, "salt") {
				return true
			}
		case 'p':
			if hasPrefixFold(rest, "pass") || hasPrefixFold(rest, "pwd") || hasPrefixFold(rest, "private") {
				return true
			}
		case 'c':
			if hasPrefixFold(rest, "credential") || hasPrefixFold(rest, "cookie") || hasPrefixFold(rest, "cert") {
				return true
			}
		case 'a':
			if hasPrefixFold(rest, "auth") {
				return true
			}
		case 'j':
			if hasPrefixFold(rest, "jwt") {
				return true
			}
		case 'd':
			if hasPrefixFold(rest, "dsn") {
				return true
			}
		}
	}
	return false
}

// containsFold reports whether s holds word (lower-case ASCII) in any
// case of ASCII letters.
func containsFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		if lower(s[i]) == word[0] && hasPrefixFold(s[i:], word) {
			return true
		}
	}
	return false
}

// hasPrefixFold reports whether s begins with word (lower-case ASCII) in
// any case of ASCII letters.
func hasPrefixFold(s, word string) bool {
	if len(s) < len(word) {
		return false
	}
	for j := range len(word) {
		if lower(s[j]) != word[j] {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
