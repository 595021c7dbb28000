package shellcmd

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// word is one argument as the shell would pass it.
type word struct {
	text string // quotes and escapes removed; expansions kept as written
	// static is set when text is exactly the argument: no parameter
	// expansion, command substitution, arithmetic or glob.
	static bool
	node   *syntax.Word // nil for words split from a string
	// added stands for words a wrapper adds at run time (xargs's input):
	// classified, never shown.
	added bool
	// pattern is set when the word's only run-time part is a glob: the
	// pattern the shell would expand (filepath.Match syntax, quoted and
	// escaped characters escaped).
	pattern string
}

// lit is a static word.
func lit(s string) word { return word{text: s, static: true} }

// maxBraceWords bounds brace expansion; a word expanding to more is
// treated as unknown.
const maxBraceWords = 64

// words normalises a command's words, splitting them at unquoted $IFS
// and expanding braces.
func words(ws []*syntax.Word) []word {
	var out []word
	for _, w := range ws {
		for _, f := range splitIFS(w) {
			out = append(out, braceWords(f)...)
		}
	}
	return out
}

// splitIFS splits a word where it expands IFS unquoted: IFS is whitespace
// (unless the line sets it, which is dangerous in itself), so the shell's
// field splitting makes rm$IFS-rf$IFS/ three words. Empty fields are
// dropped, as the shell drops them.
func splitIFS(w *syntax.Word) []*syntax.Word {
	var out []*syntax.Word
	cur := &syntax.Word{}
	split := false
	for _, p := range w.Parts {
		if expandsIFS(p) {
			split = true
			if len(cur.Parts) > 0 {
				out = append(out, cur)
				cur = &syntax.Word{}
			}
			continue
		}
		cur.Parts = append(cur.Parts, p)
	}
	if !split {
		return []*syntax.Word{w}
	}
	if len(cur.Parts) > 0 {
		out = append(out, cur)
	}
	return out
}

// expandsIFS reports an unquoted expansion of IFS that yields whitespace
// only: $IFS, ${IFS}, ${IFS:0:1}, ${IFS%?}, ${IFS:-x} and the like (not
// ${#IFS}, ${!IFS}, ${IFS/ /x} or ${IFS:+x}).
func expandsIFS(p syntax.WordPart) bool {
	pe, ok := p.(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Param.Value != "IFS" || pe.Length || pe.Width || pe.Excl || pe.Index != nil ||
		pe.Repl != nil || pe.NestedParam != nil {
		return false
	}
	if pe.Exp != nil {
		switch pe.Exp.Op {
		case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
			return false
		}
	}
	return true
}

func braceWords(w *syntax.Word) []word {
	cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
	if !syntax.SplitBraces(cp) {
		return []word{literal(w)}
	}
	var out []word
	for x, err := range expand.BracesSeq(nil, cp) {
		if err != nil || len(out) == maxBraceWords {
			return []word{{text: show(w), node: w}}
		}
		lw := literal(x)
		lw.node = w
		out = append(out, lw)
	}
	return out
}

// literal normalises one word.
func literal(w *syntax.Word) word {
	var b, pat strings.Builder
	glob, dynamic := false, false
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			s, g := unescape(p.Value, &pat)
			glob = glob || g
			b.WriteString(s)
		case *syntax.SglQuoted:
			s := p.Value
			if p.Dollar {
				s = ansiC(p.Value)
			}
			b.WriteString(s)
			pat.WriteString(quoteGlob(s))
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					s := unescapeDouble(l.Value)
					b.WriteString(s)
					pat.WriteString(quoteGlob(s))
					continue
				}
				dynamic = true
				b.WriteString(show(q))
			}
		case *syntax.ProcSubst:
			b.WriteString(show(p)) // a /dev/fd path: never an option
			dynamic = true
		default:
			dynamic = true
			b.WriteString(show(p))
		}
	}
	out := word{text: strings.ReplaceAll(b.String(), crMark, "\r"), static: !glob && !dynamic, node: w}
	if glob && !dynamic {
		out.pattern = strings.ReplaceAll(pat.String(), crMark, "\r")
	}
	return out
}

// unescape removes backslash escapes from an unquoted literal and reports
// whether it holds an unescaped glob. It writes the literal as a glob
// pattern (escapes kept) to pat.
func unescape(s string, pat *strings.Builder) (string, bool) {
	var b strings.Builder
	glob := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
				pat.WriteString(quoteGlob(s[i : i+1]))
			}
			continue
		case c == '*' || c == '?':
			glob = true
		case c == '[' && strings.Contains(s[i+1:], "]"):
			glob = true
		}
		b.WriteByte(c)
		pat.WriteByte(c)
	}
	return b.String(), glob
}

// quoteGlob escapes the glob characters of a quoted string.
func quoteGlob(s string) string {
	if !strings.ContainsAny(s, `*?[]\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`*?[]\`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the escapes bash honours inside double quotes.
func unescapeDouble(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes the body of a $'...' string.
func ansiC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			max := 2
			switch c {
			case 'u':
				max = 4
			case 'U':
				max = 8
			}
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(c)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if c == 'x' {
				b.WriteByte(byte(n))
			} else if r := rune(n); utf8.ValidRune(r) {
				b.WriteRune(r)
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default: // \\ \' \" \? and unknown escapes
			if strings.IndexByte("\\'\"?", c) < 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// show prints a node as shell source; a plain ${NAME} is shown as $NAME.
func show(n syntax.Node) string {
	if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil && p.NestedParam == nil && !p.Excl && !p.Length &&
		p.Index == nil && p.Slice == nil && p.Repl == nil && p.Exp == nil && p.Names == 0 && len(p.Modifiers) == 0 {
		return "$" + p.Param.Value
	}
	var b strings.Builder
	if err := syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, n); err != nil {
		return "?"
	}
	return b.String()
}

// texts returns the words' texts.
func texts(ws []word) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		if !w.added {
			out = append(out, w.text)
		}
	}
	return out
}
