package workspace

import (
	"math/rand/v2"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// genMatch appends to b a random text that r may match (assertions are
// ignored: the caller keeps only the texts the regex matches).
func genMatch(rnd *rand.Rand, r *syntax.Regexp, b []byte) []byte {
	reps := func(lo, hi int) int {
		switch rnd.IntN(4) {
		case 0:
			return lo
		case 1:
			if hi >= 0 && hi <= 256 {
				return hi // the edges of bounded runs
			}
		}
		if hi < 0 || hi > lo+4 {
			hi = lo + 4
		}
		return lo + rnd.IntN(hi-lo+1)
	}
	switch r.Op {
	case syntax.OpLiteral:
		for _, c := range r.Rune {
			if r.Flags&syntax.FoldCase != 0 && rnd.IntN(2) == 0 {
				if f := unicode.SimpleFold(c); f < 0x80 || rnd.IntN(16) == 0 {
					c = f
				}
			}
			b = utf8.AppendRune(b, c)
		}
	case syntax.OpCharClass:
		if len(r.Rune) == 0 {
			return b
		}
		// Mostly ASCII (K and ſ, which turn the guards off, are
		// ranges of their own in a folded class), never a newline.
		var c rune
		in := func(c rune) bool {
			for i := 0; i+1 < len(r.Rune); i += 2 {
				if r.Rune[i] <= c && c <= r.Rune[i+1] {
					return true
				}
			}
			return false
		}
		for try := 0; try < 64 && rnd.IntN(32) != 0; try++ {
			if p := rune(' ' + rnd.IntN(95)); in(p) {
				return utf8.AppendRune(b, p)
			}
		}
		for try := 0; try < 16; try++ {
			i := rnd.IntN(len(r.Rune)/2) * 2
			lo, hi := r.Rune[i], min(r.Rune[i+1], r.Rune[i]+0x10000)
			c = lo + rune(rnd.IntN(int(hi-lo)+1))
			if c < 0x80 && c != '\n' || rnd.IntN(32) == 0 && c != '\n' {
				break
			}
		}
		if c != '\n' {
			b = utf8.AppendRune(b, c)
		}
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b = append(b, byte(' '+rnd.IntN(95)))
	case syntax.OpCapture:
		b = genMatch(rnd, r.Sub[0], b)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, -1
		switch r.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = r.Min, r.Max
		}
		for range reps(lo, hi) {
			b = genMatch(rnd, r.Sub[0], b)
		}
	case syntax.OpConcat:
		for _, s := range r.Sub {
			b = genMatch(rnd, s, b)
		}
	case syntax.OpAlternate:
		b = genMatch(rnd, r.Sub[rnd.IntN(len(r.Sub))], b)
	}
	return b
}

// TestValueGuardsKeepMatches: for every rule, texts its regex matches
// (made from the regex at random, between random neighbours) hold its
// line need, and when the rule also finds a secret there, its guard
// admits one of its keyword hits.
func TestValueGuardsKeepMatches(t *testing.T) {
	guarded, plain := secretRules(), compileRules(localRules, gitleaksRules, nil)
	rnd := rand.New(rand.NewPCG(1, 2))
	around := []string{"", " ", "x", "\t", "; ", "\"", "'", "=", "é ", "# ", "a_b.", "-", "\u212a", "export "}
	samples := 200
	if testing.Short() || raceOn {
		samples = 60
	}
	specs := append(append([]ruleSpec(nil), localRules...), gitleaksRules...)
	matched, secrets := 0, 0
	for id := range guarded.rules {
		re, err := syntax.Parse(specs[id].re, syntax.Perl)
		if err != nil {
			continue
		}
		g, p := &guarded.rules[id], &plain.rules[id]
		for range samples {
			line := append([]byte(around[rnd.IntN(len(around))]), genMatch(rnd, re, nil)...)
			line = append(line, around[rnd.IntN(len(around))]...)
			if p.re.get().Match(line) {
				matched++
				if !g.need.holds(line) {
					t.Errorf("%s: %q matches, its need does not hold", g.name, line)
				}
			}
			if g.near == nil || !p.matchLine(line) {
				continue
			}
			secrets++
			admitted := false
			for _, h := range guarded.kw.hits(nil, line) {
				for _, k := range guarded.kw.accept[h.state] {
					if k == uint16(id) && guarded.admits(k, line, h.pos, func() bool { return foldsToASCII(line) }) {
						admitted = true
					}
				}
			}
			if !admitted {
				t.Errorf("%s: %q holds a secret, its guard admits no hit", g.name, line)
			}
		}
	}
	if matched < len(guarded.rules)*samples/4 || secrets < samples {
		t.Errorf("only %d texts matched and %d held a secret: the generator is broken", matched, secrets)
	}
	t.Logf("%d texts matched, %d held a secret", matched, secrets)
}

// TestValueGuardsSpareCode: code that names a credential without
// assigning it a value sends no line to the credential rules' regexes.
func TestValueGuardsSpareCode(t *testing.T) {
	rs := secretRules()
	for _, line := range []string{
		"\ttoken := p.next()",
		"\tpassword: cfg.Password,",
		"\tsecret = strings.TrimSpace(secret)",
		"\tapiKey := os.Getenv(\"API_KEY\")",
		"\tSecretKey: secretKey,",
		"\ttoken = tokenizer.NextTokenValue()",
	} {
		data := []byte(line)
		for _, h := range rs.kw.hits(nil, data) {
			for _, id := range rs.kw.accept[h.state] {
				name := rs.rules[id].name
				if !strings.Contains("credential assignment|secret environment assignment|unquoted credential|secret key", name) {
					continue
				}
				if rs.admits(id, data, h.pos, func() bool { return false }) && rs.rules[id].need.holds(data) {
					t.Errorf("%q goes to the %s regex", line, name)
				}
			}
		}
	}
}

// TestWindowsMatchWholeLines: on long ASCII lines (filler of code and
// base64 around texts each rule's regex matches, at random places), the
// scan that lets the DFA read only the windows around keyword hits
// finds what the scan that reads whole lines finds (referenceScan).
func TestWindowsMatchWholeLines(t *testing.T) {
	rs := secretRules()
	windowed := 0
	for _, r := range rs.rules {
		if r.window > 0 {
			windowed++
		}
	}
	if windowed < len(rs.rules)/2 {
		t.Errorf("%d of %d rules have a window", windowed, len(rs.rules))
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	specs := append(append([]ruleSpec(nil), localRules...), gitleaksRules...)
	filler := []string{"x := os.Open(name); ", "H4sICB7y+WMEAHMyLWRp", "okta ", "s.Close() ", "token = ", "0000", " ", "password: ", "eyJ", "\""}
	samples := 15
	if testing.Short() || raceOn {
		samples = 4
	}
	for id, r := range rs.rules {
		if r.window == 0 {
			continue
		}
		re, err := syntax.Parse(specs[id].re, syntax.Perl)
		if err != nil {
			continue
		}
		for range samples {
			var line []byte
			for len(line) < longLine*(2*r.window+3)+rnd.IntN(2000) {
				if rnd.IntN(8) == 0 {
					line = genMatch(rnd, re, line)
				} else {
					line = append(line, filler[rnd.IntN(len(filler))]...)
				}
			}
			if hasHighByte(line) {
				continue
			}
			data := append(append([]byte("package x\n"), line...), '\n')
			var got, want []scanFinding
			rs.scan(data, func(s, e int, name string) bool { got = append(got, scanFinding{s, e, name}); return true })
			rs.referenceScan(data, func(s, e int, name string) bool { want = append(want, scanFinding{s, e, name}); return true })
			if !slices.Equal(got, want) {
				t.Fatalf("%s: scan = %v, the reference %v, on %q", r.name, got, want, line)
			}
		}
	}
}
