package workspace

import (
	"math/rand"
	"strings"
	"testing"
)

// FuzzRuleLineFilter checks the rules' line filter (lazyRegexp.mayMatch,
// a DFA that spares most keyword lines the regexp) against the regexp
// itself, for every rule and allowlist regexp: it may say "maybe" only
// when the regexp matches, and must say it whenever the regexp does (a
// "no" where the regexp matches would let a secret through the gate).
func FuzzRuleLineFilter(f *testing.F) {
	hex32 := "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
	val := "Xk9fQ2mZ8pL4wR7tYb"
	for _, s := range []string{
		fake("SK", hex32), fake("x := SK", hex32, "00"), fake("task", hex32), fake("TASK", hex32),
		fake("password: ", val), fake("  - 'db.password' = ", val), fake("privatekey: token_", val),
		fake("\"api-key\"\t: ", val), fake("secret_key = '", "Xk9fQ2mZ8pL4wR7tYb3c", "'"),
		fake("admin_password = \"", "aB3dE5fG7h", "\""), fake("etsy_key = ", "aB3dE5fG7hJ9kL1mN3pQ5rS7"),
		fake("SG.", "aB3dE5fG7hJ9kL1m.aB3dE5fG7hJ9kL1mN3pQ"), fake("hf_", "aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH"),
		fake("AKIA", "Q3ZRXJ7VN2LMPW4K"), fake("token ghp_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
		fake("const k = \"sk-", "proj-", "aBcDeFgHiJkLmNoPqRsTuVwXyZ01234"), fake("sk-", "ant-", strings.Repeat("aB3_-", 8)),
		fake("-----BEGIN RSA ", "PRIVATE KEY-----"), fake("postgres://admin:", "s3cr3tPassw0rd", "@db.example.com/app"),
		fake("Authorization: Bearer ", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
		"func (k *Key) Secret() string { return k.token }", "password := flag.String(\"password\", \"\", \"the password\")",
		"ΚK ſ é " + fake("passwordK: ", val), strings.Repeat("x sk-abc ", 2000),
	} {
		f.Add(s)
	}
	rs := secretRules()
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n") {
			return // the gate's lines hold no newline
		}
		b := []byte(line)
		check := func(name string, l *lazyRegexp) {
			if want := l.get().Match(b); want && !l.mayMatch(b) {
				t.Fatalf("%s: the line filter says no match in %q, the regexp matches", name, line)
			}
		}
		for _, r := range rs.rules {
			check(r.name, r.re)
			for _, a := range r.allow {
				for _, re := range a.res {
					check(r.name+" allowlist", re)
				}
			}
		}
	})
}

// TestRuleLineFilterSparesRegexp checks that the line filter is there to
// decide the lines without a match: every rule has one (no pattern is
// beyond textsearch), and it says no on a keyword line without a secret.
func TestRuleLineFilterSparesRegexp(t *testing.T) {
	line := []byte(strings.Repeat("the password and token and secret and api key of sk-x ", 200))
	for _, r := range secretRules().rules {
		r.re.get()
		if r.re.lines == nil {
			t.Errorf("%s: no line filter for %q", r.name, r.re.src)
			continue
		}
		if r.re.get().Match(line) {
			continue
		}
		if r.re.mayMatch(line) {
			t.Errorf("%s: the line filter says maybe on a line the regexp does not match", r.name)
		}
	}
}

// TestRuleLineFilterOutlivesExhaustion checks that a searcher that spent
// its work budget (on a pattern that defeats the DFA's cache) is not
// reused: the next line is decided by a fresh one, not waved through to
// the regexp for good.
func TestRuleLineFilterOutlivesExhaustion(t *testing.T) {
	l, err := newLazyRegexp(`a[a-j]{800}$`)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	costly := make([]byte, 10<<20) // one line of random a-j: a new state per byte
	for i := range costly {
		costly[i] = 'a' + byte(r.Intn(10))
	}
	if !l.mayMatch(costly) {
		t.Fatal("a line that exhausts the DFA must go to the regexp")
	}
	if l.mayMatch([]byte("nothing to see here")) {
		t.Fatal("after an exhausted searcher, a clean line still goes to the regexp: the exhausted searcher was reused")
	}
}
