package tools

import "unicode/utf8"

// secretName reports whether secretKey matches name, without a regexp:
// it runs on the keys and words of every line of a blocked file (a PEM
// body's lines, a certificate dump's fields).
func secretName(name string) bool {
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		if secretWordAt(foldASCII(r), name[i:]) {
			return true
		}
		i += size
	}
	return false
}

// secretWordAt reports whether s, whose first rune folds to c, begins
// with one of the words secretKey finds.
func secretWordAt(c rune, s string) bool {
	switch c {
	case 'a':
		return hasPrefixFold(s, "auth")
	case 'c':
		return hasPrefixFold(s, "credential") || hasPrefixFold(s, "cookie") || hasPrefixFold(s, "cert")
	case 'd':
		return hasPrefixFold(s, "dsn")
	case 'j':
		return hasPrefixFold(s, "jwt")
	case 'k':
		return hasPrefixFold(s, "key")
	case 'p':
		return hasPrefixFold(s, "pass") || hasPrefixFold(s, "pwd") || hasPrefixFold(s, "private")
	case 's':
		return hasPrefixFold(s, "secret") || hasPrefixFold(s, "session") || hasPrefixFold(s, "signature") || hasPrefixFold(s, "salt")
	case 't':
		return hasPrefixFold(s, "token")
	}
	return false
}

// foldASCII is r in lower case when it is a letter that case folding
// (as regexp's (?i) does it) makes an ASCII letter: A-Z, K (Kelvin) and
// ſ (long s); other runes as they are.
func foldASCII(r rune) rune {
	switch {
	case 'A' <= r && r <= 'Z':
		return r + 'a' - 'A'
	case r == '\u212a':
		return 'k'
	case r == '\u017f':
		return 's'
	}
	return r
}

// hasPrefixFold reports whether s begins with word (lower-case ASCII) in
// any case (foldASCII).
func hasPrefixFold(s, word string) bool {
	for j := range len(word) {
		if s == "" {
			return false
		}
		r, size := rune(s[0]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s)
		}
		if foldASCII(r) != rune(word[j]) {
			return false
		}
		s = s[size:]
	}
	return true
}

// mentionsScheme reports whether s holds bearer, basic or token in any
// case (foldASCII): where a bearer token may follow.
func mentionsScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] | 0x20 {
		case 'b':
			if hasPrefixFold(s[i:], "bearer") || hasPrefixFold(s[i:], "basic") {
				return true
			}
		case 't':
			if hasPrefixFold(s[i:], "token") {
				return true
			}
		}
	}
	return false
}
