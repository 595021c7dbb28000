package workspace

import (
	"strings"
	"testing"
	"unicode"
)

// firstSecretName is the rule name of the first secret rs finds in data,
// or "".
func firstSecretName(rs *ruleSet, data []byte) string {
	name := ""
	rs.scan(data, func(_, _ int, n string) bool { name = n; return false })
	return name
}

// guardMisses names the guarded rules whose regex (plain's, which sends
// every keyword's line to it) matches the line data while their guard
// admits none of their keyword hits there, as scan decides.
func guardMisses(guarded, plain *ruleSet, data []byte) []string {
	admitted := map[uint16]bool{}
	for _, h := range guarded.kw.hits(nil, data) {
		s, e := lineBounds(data, h.pos)
		for _, id := range guarded.kw.accept[h.state] {
			admitted[id] = admitted[id] || guarded.admits(id, data, h.pos, func() bool { return foldsToASCII(data[s:e]) })
		}
	}
	var miss []string
	for id := range guarded.rules {
		if guarded.rules[id].near != nil && plain.rules[id].matchLine(data) && !admitted[uint16(id)] {
			miss = append(miss, guarded.rules[id].name)
		}
	}
	return miss
}

// TestMoreGuardsKeepVerdicts: the guards of the rules whose keywords are
// common in code (twilio's "sk", the unquoted credential's "token", the
// secret key's "secret", …) let through every line their rule's regex
// finds a secret on, and the first secret found is the one found without
// guards, on lines at the guards' edges.
func TestMoreGuardsKeepVerdicts(t *testing.T) {
	guarded, plain := secretRules(), compileRules(localRules, gitleaksRules, nil)
	hex32 := "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
	val := "Xk9fQ2mZ8pL4wR7tYb"
	lines := []struct {
		line   string
		secret bool // whether the unguarded rules find one
	}{
		{fake("SK", hex32), true}, {fake("x := SK", hex32, "00"), true}, {fake("sk", hex32), false}, {fake("SK", hex32[:31]), false},
		{fake("task", hex32), false}, {fake("TASK", hex32), true},
		{fake("password: ", val), true}, {fake("  - 'db.password' = ", val), true}, {fake("privatekey: ", val), true},
		{fake("privatekey: token_", val), true}, {fake("x(password): ", val), false}, {fake("\"api-key\"\t: ", val), true},
		{fake("secret_key = '", "Xk9fQ2mZ8pL4wR7tYb3c", "'"), true}, {fake("app.config['SECRET_KEY'] = '", "Xk9fQ2mZ8pL4wR7tYb3c", "'"), true},
		{fake("SIGNING_KEY=", "Xk9fQ2mZ8pL4wR7tYb3c"), true}, {fake("jwt_secret_value => \"", "Xk9fQ2mZ8pL4wR7tYb3c", "\""), true},
		{fake("admin_password = \"", "aB3dE5fG7h", "\""), true}, {fake("etsy_key = ", "aB3dE5fG7hJ9kL1mN3pQ5rS7"), true},
		{fake("SG.", "aB3dE5fG7hJ9kL1m.aB3dE5fG7hJ9kL1mN3pQ"), true}, {fake("SG.", "aB3dE5fG7hJ9kL1"), false},
		{fake("hf_", "aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH"), true}, {fake("key-", hex32), true},
		{fake("AKIA", "Q3ZRXJ7VN2LMPW4K"), true}, {fake("A3TX", "Q3ZRXJ7VN2LMPW4K"), true}, {fake("AKIA", "Q3ZRXJ7VN2LMPW4"), false},
	}
	// The gitleaks assignment family's value check: the value after the
	// operator (up to 4 bytes) and up to 5 quotes, spaces or '='.
	for _, l := range []string{
		fake("linear:::= '", hex32, "'"), fake(`linear , "`, hex32, `"`), fake("LINEAR => ", hex32, ";"), fake(`linear="""""`, hex32),
		fake(`linear: '`, hex32[:31], "'"), "linear: function(a){return a}", fake("linear_key ?= `", hex32, "`"), fake("linear\t|| ", hex32, `\n`),
		fake(`adafruit = "`, "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY", `"`), fake(`beamer: "b_`, "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xYaB3dE5fG7hJ", `"`),
		fake("linear: '", strings.Repeat("\u017f", 32), "'"), fake("linear: é", hex32), fake("linear: '", strings.ToUpper(hex32), "'"),
	} {
		lines = append(lines, struct {
			line   string
			secret bool
		}{l, firstSecretName(plain, []byte(l)) != ""})
	}
	for _, l := range lines {
		data := []byte(l.line)
		for _, name := range guardMisses(guarded, plain, data) {
			t.Errorf("%q: %s matches, its guard admits no hit", l.line, name)
		}
		g, p := firstSecretName(guarded, data), firstSecretName(plain, data)
		if g != p {
			t.Errorf("%q: with guards %q, without %q", l.line, g, p)
		}
		if (p != "") != l.secret {
			t.Errorf("%q: found %q without guards, want a secret: %v", l.line, p, l.secret)
		}
	}
}

// TestOnlyKelvinAndLongSFold backs foldsToASCII: no other character is
// matched by (?i) to an ASCII letter.
func TestOnlyKelvinAndLongSFold(t *testing.T) {
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < 0x80 && r != '\u212a' && r != '\u017f' {
				t.Errorf("%U folds to %q", r, f)
			}
		}
	}
}

// TestGuardsOnNonASCIILines: a line with other non-ASCII text is guarded
// (a keyword hit whose guard fails does not reach the regex), and the
// verdicts stay those without guards, K and ſ spelling keywords included.
func TestGuardsOnNonASCIILines(t *testing.T) {
	guarded, plain := secretRules(), compileRules(localRules, gitleaksRules, nil)
	val := "Xk9fQ2mZ8pL4wR7tYb"
	for _, l := range []string{
		fake("// café: password: ", val), fake("x := \"é\"; db_password = \"", val, "\""), fake("é s.", "aB3dE5fG7hJ9kL1mN3pQ5rS7"),
		fake("token é; pa\u017f\u017fword = '", val, "'"), fake("é api_\u212aey: token ", val), fake("ü task", "0a1b2c3d4e5f60718293a4b5c6d7e8f9"),
		fake("ü TASK", "0a1b2c3d4e5f60718293a4b5c6d7e8f9"), "var π = os.Args // s.Close() token",
	} {
		if g, p := firstSecretName(guarded, []byte(l)), firstSecretName(plain, []byte(l)); g != p {
			t.Errorf("%q: with guards %q, without %q", l, g, p)
		}
		for _, name := range guardMisses(guarded, plain, []byte(l)) {
			t.Errorf("%q: %s matches, its guard admits no hit", l, name)
		}
	}
	// The vault rule's guard holds on "é os.Open": the line does not reach its regex.
	line := []byte("é := os.Open(name)")
	var hits, admitted int
	for _, h := range guarded.kw.hits(nil, line) {
		for _, id := range guarded.kw.accept[h.state] {
			if guarded.rules[id].name == "vault-service-token" {
				hits++
				if guarded.admits(id, line, h.pos, func() bool { return foldsToASCII(line) }) {
					admitted++
				}
			}
		}
	}
	if hits == 0 || admitted != 0 {
		t.Errorf("%q: %d vault keyword hits, %d admitted; want some, none admitted", line, hits, admitted)
	}
}
