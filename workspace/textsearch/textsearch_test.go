package textsearch

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// naive is the reference: the start offsets of the lines re matches.
func naive(re *regexp.Regexp, data []byte) []int {
	var out []int
	for start := 0; start < len(data); {
		end := bytes.IndexByte(data[start:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += start
		}
		if re.Match(data[start:end]) {
			out = append(out, start)
		}
		start = end + 1
	}
	return out
}

// reference is the regexp a pattern means, line by line.
func reference(expr string, caseSensitive, literal bool) (*regexp.Regexp, error) {
	if literal {
		expr = regexp.QuoteMeta(expr)
	}
	if !caseSensitive {
		expr = "(?i)" + expr
	}
	return regexp.Compile(expr)
}

const sample = "package main\n// TODO: fix\nfunc main() {\n\tx := \"2024-01-02\"\n\treturn nil, err\n}\n" +
	"// fixme later\nXXX marks\n\u212aelvin KEY key\nſecret SECRET\nÉTÉ été Été\n\n\r\nfoo_bar123 CamelCase42\nlast line no newline"

func TestMatchLines(t *testing.T) {
	tests := []struct {
		name, expr    string
		caseSensitive bool
		literal       bool
	}{
		{"fold literal", "func", false, true},
		{"case literal", "func", true, true},
		{"alternation", "(TODO|FIXME|XXX)", false, false},
		{"date", `[0-9]{4}-[0-9]{2}-[0-9]{2}`, false, false},
		{"ident", `func \w+\(`, false, false},
		{"anchored", `^\s*return\b`, false, false},
		{"anchored end", `\)\s*\{$`, false, false},
		{"empty line", `^$`, false, false},
		{"kelvin", "key", false, true},
		{"long s", "secret", false, true},
		{"unicode fold", "été", false, true},
		{"unicode class", `[éÉ]t[éÉ]`, true, false},
		{"no literal", `[A-Z][a-z]+[0-9]{2,}`, true, false},
		{"nested", `(foo|ba(r|z))_?[a-z]+[0-9]`, false, false},
		{"matches empty", `x*`, false, false},
		{"text anchors", `\Afunc|line\z`, false, false},
		{"cr", `\r$`, true, false},
		{"dot", `T.DO`, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Compile(tc.expr, tc.caseSensitive, tc.literal)
			if err != nil {
				t.Fatal(err)
			}
			re, err := reference(tc.expr, tc.caseSensitive, tc.literal)
			if err != nil {
				t.Fatal(err)
			}
			for _, data := range []string{sample, strings.Repeat(sample+"\n", 40), ""} {
				got := p.NewSearcher().MatchLines(nil, []byte(data))
				want := naive(re, []byte(data))
				if !slices.Equal(got, want) {
					t.Fatalf("%q: got %v, want %v", tc.expr, got, want)
				}
			}
		})
	}
}

// TestWindows checks which patterns get a prefilter.
func TestWindows(t *testing.T) {
	tests := []struct {
		expr string
		want bool
	}{
		{"(?i)(TODO|FIXME|XXX)", true},
		{`[0-9]{4}-[0-9]{2}-[0-9]{2}`, true},
		{`(?i)func \w+Context\(`, true},
		{`.*`, false},
		{`a|.`, false},
		{`[a-z]+`, false},
	}
	for _, tc := range tests {
		p, err := Compile(tc.expr, true, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.scan != nil; got != tc.want {
			t.Errorf("%q: prefilter %v, want %v", tc.expr, got, tc.want)
		}
	}
}

// TestExact checks which patterns are matched as exact byte sequences.
func TestExact(t *testing.T) {
	tests := []struct {
		expr          string
		caseSensitive bool
		want          bool
	}{
		{"func", false, true},
		{"(TODO|FIXME|XXX)", false, true},
		{"(get|set)(Deadline|Timeout)|Read(From|At)", true, true},
		{"(get|set)Deadline", false, false}, // s has a non-ASCII case variant
		{"[0-9][0-9]-x", true, true},
		{"key", false, false},   // k has a non-ASCII case variant
		{"été", false, false},   // not ASCII
		{"^func", false, false}, // an anchor
		{"a+b", true, false},
		{"a[^b]c", true, false}, // the class holds newline and non-ASCII
	}
	for _, tc := range tests {
		p, err := Compile(tc.expr, tc.caseSensitive, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.exact != nil; got != tc.want {
			t.Errorf("%q: exact %v, want %v", tc.expr, got, tc.want)
		}
	}
}

// FuzzMatchLines checks the prefilter, the SIMD scanner and the DFA
// against the regexp package line by line.
func FuzzMatchLines(f *testing.F) {
	f.Add(sample, "(TODO|FIXME|XXX)", false, false)
	f.Add(sample, `[0-9]{4}-[0-9]{2}`, true, false)
	f.Add(sample, "key", false, true)
	f.Add(sample, `^\s*(ret|fu)`, false, false)
	f.Add(strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789\n", 5), "xyz0", false, true)
	f.Add("é\nÉ\n", "é", false, false)
	f.Fuzz(func(t *testing.T, content, expr string, caseSensitive, literal bool) {
		if len(expr) > 64 || strings.Contains(expr, "{") && strings.Count(expr, "{") > 2 {
			return // keep compiled programs small
		}
		p, err := Compile(expr, caseSensitive, literal)
		if err != nil {
			return
		}
		re, err := reference(expr, caseSensitive, literal)
		if err != nil {
			return // invalid UTF-8 in a literal: nothing to compare with
		}
		data := []byte(content)
		got := p.NewSearcher().MatchLines(nil, data)
		want := naive(re, data)
		if !slices.Equal(got, want) {
			t.Fatalf("%q (caseSensitive %v, literal %v) on %q: got %v, want %v", expr, caseSensitive, literal, content, got, want)
		}
		if literal {
			return
		}
		if pl, err := CompileLines(expr, caseSensitive); err == nil {
			if got := pl.NewSearcher().MatchLines(nil, data); !slices.Equal(got, want) {
				t.Fatalf("CompileLines %q (caseSensitive %v) on %q: got %v, want %v", expr, caseSensitive, content, got, want)
			}
		}
	})
}

func TestByteFinder(t *testing.T) {
	control := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 0x0b, 0x0e, 0x0f, 0x10, 0x1a, 0x1c, 0x1f}
	tests := []struct {
		name string
		set  []byte
		data string
		want int
	}{
		{"none", control, strings.Repeat("text\twith\r\ntabs\f\x1b[0m ", 20), -1},
		{"late", control, strings.Repeat("a", 100) + "\x01", 100},
		{"early", control, "\x00" + strings.Repeat("a", 100), 0},
		{"many high nibbles", []byte("\x01\x21\x41\x61\x81\xa1\xc1\xe1\xf1"), strings.Repeat("\x02\x22\x42", 30) + "\xf1", 90},
		{"empty set", nil, "abc", -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := NewByteFinder(tc.set...).Index([]byte(tc.data)); got != tc.want {
				t.Fatalf("got %d, want %d", got, tc.want)
			}
		})
	}
}

func FuzzByteFinder(f *testing.F) {
	f.Add([]byte("\x00\x01\x0b"), []byte(strings.Repeat("abc\n", 20)+"\x0b"))
	f.Fuzz(func(t *testing.T, set, data []byte) {
		want := bytes.IndexAny(data, string(set))
		if !utf8Valid(set) || !utf8Valid(data) {
			want = -1
			for i, b := range data {
				if bytes.IndexByte(set, b) >= 0 {
					want = i
					break
				}
			}
		}
		if got := NewByteFinder(set...).Index(data); got != want {
			t.Fatalf("set %q in %q: got %d, want %d", set, data, got, want)
		}
	})
}

func utf8Valid(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// TestRegexpCompiledOnFirstUse: Compile leaves the regexp to the first
// call that needs it (the DFA decides lines without it), and Regexp then
// gives the pattern's regexp.
func TestRegexpCompiledOnFirstUse(t *testing.T) {
	p, err := Compile(`\bAKIA[0-9A-Z]{16}\b`, true, false)
	if err != nil {
		t.Fatal(err)
	}
	s := p.NewSearcher()
	if got := s.MatchLines(nil, []byte("a\nAKIAZ7Q2MBV5XK3LWPT4\nb")); len(got) != 1 || got[0] != 2 {
		t.Fatalf("MatchLines = %v, want [2]", got)
	}
	if p.re != nil {
		t.Fatal("the regexp was compiled though the DFA decided every line")
	}
	if re := p.Regexp(); re == nil || re.String() != `\bAKIA[0-9A-Z]{16}\b` || !re.MatchString("AKIAZ7Q2MBV5XK3LWPT4") {
		t.Fatalf("Regexp() = %v", re)
	}
	if _, err := Compile(`a(b`, false, false); err == nil || !strings.Contains(err.Error(), "missing closing )") {
		t.Fatalf("Compile of a bad pattern: %v", err)
	}
}

// TestCompileLines: a pattern compiled for short texts (no literal
// prefilter: the DFA reads every byte) finds the lines the regexp does,
// as Compile's does.
func TestCompileLines(t *testing.T) {
	for _, expr := range []string{"(TODO|FIXME|XXX)", `[0-9]{4}-[0-9]{2}-[0-9]{2}`, `func \w+\(`, `^\s*return\b`, `\)\s*\{$`, `^$`,
		`(?i)key`, `(?i)secret`, `été`, `[A-Z][a-z]+[0-9]{2,}`, `x*`, `\Afunc|line\z`, `\r$`,
		`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`, `(?i)[\w.-]{0,50}?(?:secret|token)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([a-z0-9]{16,})`} {
		for _, caseSensitive := range []bool{true, false} {
			p, err := CompileLines(expr, caseSensitive)
			if err != nil {
				t.Fatal(err)
			}
			if p.scan != nil || p.exact != nil {
				t.Fatalf("%q: CompileLines made a prefilter", expr)
			}
			re, err := reference(expr, caseSensitive, false)
			if err != nil {
				t.Fatal(err)
			}
			for _, data := range []string{sample, strings.Repeat(sample+"\n", 40), "", "token = \"abcdef0123456789abcd\"\nid AKIAZ7Q2MBV5XK3LWPT4\n"} {
				if got, want := p.NewSearcher().MatchLines(nil, []byte(data)), naive(re, []byte(data)); !slices.Equal(got, want) {
					t.Fatalf("%q (caseSensitive %v): got %v, want %v", expr, caseSensitive, got, want)
				}
			}
		}
	}
}
