package workspace

import "strings"

// Value guards: the guards of our credential rules, which check the name
// before the assignment (assignAfter), also check the value after it, as
// the rule's regex takes it. In code, `token := p.next()` and
// `password: cfg.Password,` are assignments of a keyword's name whose
// value no rule accepts; their lines no longer meet the regex. As every
// guard, each holds at the keyword hit inside any match of its rule
// (TestValueGuardsKeepMatches); a byte ≥ 0x80 passes every class, and
// lengths are checked as at least so many bytes (a character is one or
// more).

// opAt is assignAfter's position of the operator in text, or −1.
func opAt(text []byte, word func(byte) bool, quotes, ops string) int {
	i := 0
	for i < len(text) && (text[i] >= 0x80 || word(text[i])) {
		i++
	}
	if i < len(text) && strings.IndexByte(quotes, text[i]) >= 0 {
		i++
	}
	i = skipSpace(text, i)
	if i < len(text) && strings.IndexByte(ops, text[i]) >= 0 {
		return i
	}
	return -1
}

// skipSpace skips regexp's \s ([\t\n\f\r ]) from i.
func skipSpace(text []byte, i int) int {
	for i < len(text) && isSpaceByte(text[i]) {
		i++
	}
	return i
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// runOfAt is the length of the run of bytes from i that class admits (or
// ≥ 0x80), counted up to limit.
func runOfAt(text []byte, i, limit int, class func(byte) bool) int {
	n := 0
	for i+n < len(text) && n < limit && (text[i+n] >= 0x80 || class(text[i+n])) {
		n++
	}
	return n
}

// lineEndAt reports whether text ends at i or has a newline there.
func lineEndAt(text []byte, i int) bool { return i >= len(text) || text[i] == '\n' }

// credentialValueNear is the credential assignment rule's guard:
// …(?:api[_-]?key|…)[a-z0-9_.\-]*["']?\s*[:=]\s*["']([^\s"'\\<>(){}\[\]]{12,200})["']
func credentialValueNear(data []byte, end int) bool {
	text := data[end+1:]
	i := opAt(text, func(c byte) bool { return isWordByte(c) || c == '.' || c == '-' }, `"'`, ":=")
	if i < 0 {
		return false
	}
	i = skipSpace(text, i+1)
	if i >= len(text) || text[i] != '"' && text[i] != '\'' {
		return false
	}
	return runOfAt(text, i+1, 12, func(c byte) bool {
		return !isSpaceByte(c) && strings.IndexByte(`"'\<>(){}[]`, c) < 0
	}) == 12
}

// envValueNear is the secret environment assignment rule's guard:
// (?:^|[\s;])(?:export\s+)?[A-Z0-9_]*(?:API_?KEY|…)[A-Z0-9_]*\s*=\s*["']?([A-Za-z0-9_\-+/=.]{16,})(?:["'\s;]|$)
// Every alternative is a keyword, so the name before the hit is word
// bytes after a line start, white space or ';' (export's space too).
func envValueNear(data []byte, end int) bool {
	b := end
	for b >= 0 && (data[b] >= 0x80 || isWordByte(data[b])) {
		b--
	}
	if b >= 0 && data[b] != '\n' && data[b] != ';' && !isSpaceByte(data[b]) {
		return false
	}
	text := data[end+1:]
	i := opAt(text, isWordByte, "", "=")
	if i < 0 {
		return false
	}
	i = skipSpace(text, i+1)
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		i++
	}
	n := runOfAt(text, i, len(text), func(c byte) bool {
		return isWordByte(c) || c == '-' || c == '+' || c == '/' || c == '=' || c == '.'
	})
	if n < 16 {
		return false
	}
	i += n
	return lineEndAt(text, i) || text[i] == '"' || text[i] == '\'' || text[i] == ';' || isSpaceByte(text[i])
}

// unquotedValueAfter is the value of the unquoted credential rule, text
// from its operator at i: \s*([^\s'"#{}\[\]()<>$,;\\]{8,200})\s*(?:#.*)?$
func unquotedValueAfter(text []byte, i int) bool {
	i = skipSpace(text, i+1)
	n := runOfAt(text, i, len(text), func(c byte) bool {
		return !isSpaceByte(c) && strings.IndexByte(`'"#{}[]()<>$,;\`, c) < 0
	})
	if n < 8 {
		return false
	}
	i = i + n
	for i < len(text) && text[i] != '\n' && isSpaceByte(text[i]) {
		i++
	}
	return lineEndAt(text, i) || text[i] == '#'
}

// secretKeyValueAfter is the value of either secret key rule, text from
// the operator at i: (?:[:=]|=>)\s*[bfr]?(?:'([^'\s<>${}%][^'\s]{15,199})'|"…")
// or [:=]\s*([^\s"'#<>${}%][^\s"']{14,198}[^\s"'#),;{])\s*$.
func secretKeyValueAfter(text []byte, i int) bool {
	if text[i] == '=' && i+1 < len(text) && text[i+1] == '>' {
		i++
	}
	i = skipSpace(text, i+1)
	if i >= len(text) {
		return false
	}
	notSpaceQuote := func(c byte) bool { return !isSpaceByte(c) && c != '"' && c != '\'' }
	// Unquoted, to the end of the line.
	if n := runOfAt(text, i, len(text), notSpaceQuote); n >= 16 && strings.IndexByte("#<>${}%", text[i]) < 0 && strings.IndexByte("#),;{", text[i+n-1]) < 0 {
		j := i + n
		for j < len(text) && text[j] != '\n' && isSpaceByte(text[j]) {
			j++
		}
		if lineEndAt(text, j) {
			return true
		}
	}
	// Quoted, after an optional b, f or r.
	if c := text[i] | 0x20; c == 'b' || c == 'f' || c == 'r' {
		i++
	}
	if i >= len(text) || text[i] != '"' && text[i] != '\'' {
		return false
	}
	q := text[i]
	return runOfAt(text, i+1, 16, func(c byte) bool { return !isSpaceByte(c) && c != q }) == 16 &&
		(text[i+1] >= 0x80 || strings.IndexByte("<>${}%", text[i+1]) < 0)
}
