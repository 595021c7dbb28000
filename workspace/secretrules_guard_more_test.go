package workspace

import "testing"

// TestMoreGuardsKeepVerdicts: the guards of the rules whose keywords are
// common in code (twilio's "sk", the unquoted credential's "token", the
// secret key's "secret", …) let through every line their rule's regex
// finds a secret on, and the first secret found is the one found without
// guards, on lines at the guards' edges.
func TestMoreGuardsKeepVerdicts(t *testing.T) {
	guarded, plain := secretRules(), compileRules(localRules, gitleaksRules, nil)
	first := func(rs *ruleSet, data []byte) string {
		name := ""
		rs.scan(data, func(_, _ int, n string) bool { name = n; return false })
		return name
	}
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
	for _, l := range lines {
		data := []byte(l.line)
		admitted := map[uint16]bool{}
		for _, h := range guarded.kw.hits(nil, data) {
			for _, id := range guarded.kw.accept[h.state] {
				s, e := lineBounds(data, h.pos)
				admitted[id] = admitted[id] || guarded.admits(id, data, h.pos, func() bool { return hasHighByte(data[s:e]) })
			}
		}
		for id := range guarded.rules {
			if guarded.rules[id].near != nil && plain.rules[id].matchLine(data) && !admitted[uint16(id)] {
				t.Errorf("%q: %s matches, its guard admits no hit", l.line, guarded.rules[id].name)
			}
		}
		g, p := first(guarded, data), first(plain, data)
		if g != p {
			t.Errorf("%q: with guards %q, without %q", l.line, g, p)
		}
		if (p != "") != l.secret {
			t.Errorf("%q: found %q without guards, want a secret: %v", l.line, p, l.secret)
		}
	}
}
