package index

// stem strips English inflections from a lower-case ASCII term in place:
// plurals (-s, -es, -ies), -ed, -ing and a final -e, so that "parse",
// "parses", "parsed" and "parsing" meet. It is lighter than Porter's: it
// never touches derivational suffixes, which code names rely on.
func stem(b []byte) []byte {
	if len(b) <= 3 {
		return b
	}
	for _, c := range b {
		if c < 'a' || c > 'z' {
			return b // identifiers with digits or underscores stay whole
		}
	}
	n := len(b)
	switch {
	case hasSuffix(b, "sses"):
		b = b[:n-2]
	case hasSuffix(b, "ies") && n > 4:
		b = append(b[:n-3], 'y')
	case hasSuffix(b, "ss"), hasSuffix(b, "us"), hasSuffix(b, "is"):
	case b[n-1] == 's':
		b = b[:n-1]
	case hasSuffix(b, "ing") && n > 5 && hasVowel(b[:n-3]):
		b = undouble(b[:n-3])
	case hasSuffix(b, "ed") && n > 4 && hasVowel(b[:n-2]):
		b = undouble(b[:n-2])
	}
	if n := len(b); n > 3 && b[n-1] == 'e' {
		b = b[:n-1]
	}
	return b
}

func hasSuffix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[len(b)-len(s):]) == s
}

func hasVowel(b []byte) bool {
	for _, c := range b {
		switch c {
		case 'a', 'e', 'i', 'o', 'u', 'y':
			return true
		}
	}
	return false
}

// undouble turns "runn" into "run" (but keeps "ll", "ss", "zz").
func undouble(b []byte) []byte {
	n := len(b)
	if n >= 2 && b[n-1] == b[n-2] && !hasVowel(b[n-1:]) && b[n-1] != 'l' && b[n-1] != 's' && b[n-1] != 'z' {
		return b[:n-1]
	}
	return b
}
