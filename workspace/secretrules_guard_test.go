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
			if rs.admits(id, code, h.pos) && rs.rules[id].name == "vault-service-token" {
				s, e := lineBounds(code, h.pos)
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
	}
	for _, k := range testKeys() {
		lines = append(lines, k)
	}
	for _, l := range lines {
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
