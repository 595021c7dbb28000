package workspace

import (
	"bytes"
	"slices"
	"testing"
)

// TestSecretAtEveryBoundary: a secret placed at every offset around the
// 16-, 32- and 64-byte strides, pages and the lanes' cuts and chunk ends,
// and at the very end of the text (no newline after it), in mixed case,
// after a NUL, with CR line ends, or spelled with the K (U+212A) and ſ
// (U+017F) that case folding reads as k and s, is found exactly as the
// reference scan finds it (and the lanes exactly as one pass of the
// automaton); each real secret is found wherever it is.
func TestSecretAtEveryBoundary(t *testing.T) {
	rs := secretRules()
	a := rs.kw
	tok := "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	secrets := []struct {
		text  string
		found bool // a secret the gate must find wherever it is
	}{
		{"token = ghp_" + tok, true},
		{"\x00ghp_" + tok + "\x00", true},
		{"x\r\ntoken = ghp_" + tok + "\r\n", true},
		{"\rAPI_KEY=ghp_" + tok + "\r", true},
		{"xoxb-" + "1234567890123-1234567890123-" + tok[:24], true},
		{"PaSsWoRd = \"Zx9vQ2mL7pR4tY8w\"", false},
		{"pa\u017f\u017fword = \"Zx9vQ2mL7pR4tY8w\"", false},
		{"api_\u212aey = \"Zx9vQ2mL7pR4tY8wQ1\"", false},
		{"s.\u212a" + tok, false},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA" + tok + tok + "\n-----END RSA PRIVATE KEY-----", false},
	}
	filler := bytes.Repeat([]byte("f, err := os.Open(name) // bytes.Buffer s.x\n"), 1700) // ~75 KiB of guarded keywords
	// Each boundary with the length of the text around it: the strides
	// and pages in a text that ends a little after them; the lanes' cuts
	// and chunk ends in a text of 16 KiB (three chunks a lane).
	type place struct{ at, size int }
	var places []place
	for _, b := range []int{16, 32, 64, 4096, 8192, 65536} {
		places = append(places, place{b, b + 300})
	}
	const size = 16 << 10
	w := a.maxLen
	m := (size + (lanes-1)*w) / lanes &^ 3
	for l := range lanes {
		for _, b := range []int{l * (m - w), l*(m-w) + w, l*(m-w) + kwChunk, l*(m-w) + m} {
			places = append(places, place{b, size})
		}
	}
	check := func(t *testing.T, data []byte, what string, mustFind bool) {
		t.Helper()
		var got, want []scanFinding
		rs.scan(data, func(s, e int, name string) bool { got = append(got, scanFinding{s, e, name}); return true })
		rs.referenceScan(data, func(s, e int, name string) bool { want = append(want, scanFinding{s, e, name}); return true })
		if !slices.Equal(got, want) {
			t.Fatalf("%s: scan = %v, the reference %v", what, got, want)
		}
		if mustFind && len(got) == 0 {
			t.Fatalf("%s: the secret was not found", what)
		}
		checkLanes(t, a, data)
	}
	for _, s := range secrets {
		for _, p := range places {
			for off := p.at - len(s.text) - 2; off <= p.at+2; off++ {
				if off < 0 || off+len(s.text) > p.size {
					continue
				}
				data := slices.Clone(filler[:p.size])
				copy(data[off:], s.text)
				check(t, data, s.text+" at "+itoa(off)+" of "+itoa(p.size), s.found)
				// At the end of a text that ends there.
				end := append(slices.Clone(filler[:off]), s.text...)
				check(t, end, s.text+" at the end, "+itoa(off), s.found)
			}
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}
