package workspace

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestGuardsSpareCommonCode: ordinary Go code, full of `os.` and `bytes.`,
// sends no line to the vault token rule's regex.
func TestGuardsSpareCommonCode(t *testing.T) {
	rs := secretRules()
	code := []byte("f, err := os.Open(name)\nvar b bytes.Buffer\nx := strings.TrimSpace(s)\nfor _, s := range parts { s.Close() }\n")
	for _, h := range rs.kw.hits(nil, code) {
		for _, id := range rs.kw.accept[h.state] {
			s, e := lineBounds(code, h.pos)
			if rs.admits(id, code, h.pos, func() bool { return hasHighByte(code[s:e]) }) && rs.rules[id].name == "vault-service-token" {
				t.Errorf("line %q goes to the vault-service-token regex", code[s:e])
			}
		}
	}
}

// TestGuardsKeepVerdicts: the rules with their keyword guards find the same
// first secret as without them, on lines made to sit at the guards' edges,
// on the test keys, and (unless -short) on every file of GOROOT/src.
func TestGuardsKeepVerdicts(t *testing.T) {
	guarded, plain := secretRules(), compileRules(localRules, gitleaksRules, nil)
	first := func(rs *ruleSet, data []byte) string {
		name := ""
		rs.scan(data, func(_, _ int, n string) bool { name = n; return false })
		return name
	}
	tok := "aB3dE5fG7hJ9kL1mN3pQ5rS7" // 24 letters and digits
	lines := []string{
		"s." + tok, "x s." + tok + "\"", "(s." + tok + ")", "os." + tok, "bytes." + tok, "S." + tok, "s." + tok[:23],
		"s." + strings.Replace(tok, "a", "\u212a", 1), "s." + strings.Replace(tok, "B", "\u017f", 1), "s." + tok + "x",
		fake("hvs.", strings.Repeat("aB3dE5fG7h", 10)), fake("x=hvs.", strings.Repeat("aB3dE5fG7h", 10), ";"), fake("ahvs.", strings.Repeat("aB3dE5fG7h", 10)),
		fake("VAULT_TOKEN=s.", tok), fake("token: 's.", tok, "'"), "_s." + tok, "s.\n" + tok,
		// jwt, lob, the credential rules and the gitleaks assignment family.
		fake("t = eyJhbGciOiJIUzI1NiJ9x", ".eyJzdWIiOiIxMjM0NTY3ODkwIn0x.", "aB3dE5fG7hJ9kL1mN3pQ"), fake("keyJhbGciOiJIUzI1NiJ9x", ".eyJzdWIiOiIxMjM0NTY3ODkwIn0x.a"),
		fake("LOB_KEY = 'live_", "0a1b2c3d4e5f60718293a4b5c6d7e8f9012", "'"), fake("lob: test_", "0a1b2c3d4e5f60718293a4b5c6d7e8f901"),
		fake(`api_key = "`, `Xk9fQ2mZ8pL4wR7t"`), fake(`my.api-KEY_x-1 '= "`, `Xk9fQ2mZ8pL4wR7t"`), fake(`api_key\u212a = "`, `Xk9fQ2mZ8pL4wR7t"`), fake(`api_keys ("`, `Xk9fQ2mZ8pL4wR7t")`),
		fake("export DB_PASSWORD = ", "Xk9fQ2mZ8pL4wR7tY"), fake("DB_PASSWORD_\u017f=", "Xk9fQ2mZ8pL4wR7tY"), fake("DB_PASSWORD: ", "Xk9fQ2mZ8pL4wR7tY"),
		fake(`linear_client_secret = "`, `0a1b2c3d4e5f60718293a4b5c6d7e8f9"`), fake(`LINEAR '  :== `, `0a1b2c3d4e5f60718293a4b5c6d7e8f9`),
		fake(`linear.token ||`, `0a1b2c3d4e5f60718293a4b5c6d7e8f9;`), fake(`linear(x) = `, `0a1b2c3d4e5f60718293a4b5c6d7e8f9`),
		fake("postgres://admin:", "Xk9fQ2mZ8p@db.internal/app"), fake("see https://golang.org/x:", "abcdefgh@example"), fake("redis://:", "Xk9fQ2mZ8p@cache:6379"),
		fake("sc_", "aB3dE.aB3d.acc_aB3dE5fG7hJ9.", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"), fake("A3-", "ABC123-ABCDEF12345-ABC12-ABC12-ABC12"),
		fake("token = 1; pa\u017f\u017fword = '", "Xk9fQ2mZ8pL4wR7t'"), fake("api_\u212aey: token ", "Xk9fQ2mZ8pL4wR7tYb"),
		fake(`adafruit_key ?= "`, `aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY`, `"`), fake(`algolia , `, `aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY`),
	}
	for _, k := range testKeys() {
		lines = append(lines, k)
	}
	for _, l := range lines {
		// Rule by rule: a line a rule's regex matches has a hit its guard admits.
		data := []byte(l)
		admitted := map[uint16]bool{}
		for _, h := range guarded.kw.hits(nil, data) {
			for _, id := range guarded.kw.accept[h.state] {
				s, e := lineBounds(data, h.pos)
				admitted[id] = admitted[id] || guarded.admits(id, data, h.pos, func() bool { return hasHighByte(data[s:e]) })
			}
		}
		for id := range guarded.rules {
			if guarded.rules[id].near != nil && plain.rules[id].matchLine(data) && !admitted[uint16(id)] {
				t.Errorf("%q: %s matches, its guard admits no hit", l, guarded.rules[id].name)
			}
		}
		if g, p := first(guarded, []byte(l)), first(plain, []byte(l)); g != p {
			t.Errorf("%q: with guards %q, without %q", l, g, p)
		}
	}
	if testing.Short() {
		return
	}
	src := filepath.Join(runtime.GOROOT(), "src")
	var paths []string
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) == 0 {
		t.Skip("no GOROOT/src")
	}
	var wg sync.WaitGroup
	next := make(chan string)
	var mu sync.Mutex
	secrets := 0
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				data, err := os.ReadFile(p)
				if err != nil || len(data) > MaxGrepFileSize || IsBinary(data) {
					continue
				}
				g, pl := first(guarded, data), first(plain, data)
				mu.Lock()
				if g != pl {
					t.Errorf("%s: with guards %q, without %q", p, g, pl)
				}
				if g != "" {
					secrets++
				}
				mu.Unlock()
			}
		}()
	}
	for _, p := range paths {
		next <- p
	}
	close(next)
	wg.Wait()
	t.Logf("%d files of GOROOT/src, %d with a secret, the same verdicts", len(paths), secrets)
}

// TestGuardedRules names the rules with a keyword guard: the hand-written
// ones and the gitleaks assignment family.
func TestGuardedRules(t *testing.T) {
	n := 0
	for _, r := range secretRules().rules {
		if r.near != nil {
			n++
		}
	}
	if n < len(keywordGuards)+60 {
		t.Errorf("%d rules have a guard, want the %d hand-written ones and the assignment family", n, len(keywordGuards))
	}
	t.Logf("%d guarded rules", n)
}
