package workspace

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestSecretOnCraftedLongLines (redteam s10): the scan's fast paths (line
// needs, value guards, windows on long lines) find what the scan that
// reads whole lines finds (referenceScan) for secrets placed to defeat
// them: deep inside long lines of base64-like or word filler, at every
// offset around a window's edge, with the keyword far from its value,
// beside multi-byte runes at the window's edge, and with CRLF or a lone
// CR around them.
func TestSecretOnCraftedLongLines(t *testing.T) {
	rs := secretRules()
	secrets := []string{
		"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		`password = "Zx9vQ2mL7pR4tY8w"`,
		"token: ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5",
		`"api_key": "AIza` + `SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"`,
		"SECRET_KEY=" + "8f3b2c1d9e7a6f5b4c3d2e1f0a9b8c7d",
		"xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
		"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
	}
	fillers := []string{
		"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0MTIzNDU2Nzg5",
		"key token password secret api ",
		"é€😀a",
		" = ",
	}
	checked, found := 0, 0
	check := func(data []byte) {
		t.Helper()
		var got, want []scanFinding
		rs.scan(data, func(s, e int, name string) bool { got = append(got, scanFinding{s, e, name}); return true })
		rs.referenceScan(data, func(s, e int, name string) bool { want = append(want, scanFinding{s, e, name}); return true })
		checked++
		if len(want) > 0 {
			found++
		}
		if !slices.Equal(got, want) {
			t.Fatalf("scan = %v, the reference %v, in %q", got, want, shorten(data))
		}
	}
	pad := func(filler string, n int) string {
		return strings.Repeat(filler, n/len(filler)+1)[:n]
	}
	for _, s := range secrets {
		for _, fill := range fillers {
			// every offset up to past a window's edge, then long lines
			for _, n := range append(seq(0, 160), 255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 4097) {
				p := pad(fill, n)
				eols := []string{"\n"}
				if n%64 == 0 || n > 160 {
					eols = append(eols, "\r\n", "\r")
				}
				for _, eol := range eols {
					check([]byte(p + s + eol))
					check([]byte(s + p + eol))
					check([]byte(p + s + p + eol + s + eol))
				}
			}
			// the keyword far from its value
			if k, v, ok := strings.Cut(s, "="); ok {
				for _, n := range []int{1, 8, 63, 64, 65, 200, 5000} {
					check([]byte(pad(fill, 3000) + k + strings.Repeat(" ", n) + "=" + v + "\n"))
					check([]byte(k + pad(fill, n) + "=" + v + "\n"))
				}
			}
		}
	}
	if found < checked/4 {
		t.Errorf("only %d of %d crafted texts hold a secret the reference finds", found, checked)
	}
	t.Logf("%d texts, %d with a secret", checked, found)
}

func seq(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

func shorten(b []byte) []byte {
	if len(b) > 300 {
		return append(append(bytes.Clone(b[:150]), "…"...), b[len(b)-150:]...)
	}
	return b
}
