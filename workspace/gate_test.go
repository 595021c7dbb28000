package workspace

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"strings"
	"sync"
	"testing"
)

// testKeys are PEM private keys made at test time (no key sits in this
// file): RSA PKCS#1, EC SEC 1, Ed25519 PKCS#8 and an OpenSSH-shaped one.
var testKeys = sync.OnceValue(func() map[string]string {
	keys := map[string]string{}
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	keys["rsa"] = string(pem.EncodeToMemory(&pem.Block{Type: "RSA " + "PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rk)}))
	ek, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalECPrivateKey(ek)
	keys["ec"] = string(pem.EncodeToMemory(&pem.Block{Type: "EC " + "PRIVATE KEY", Bytes: der}))
	_, edk, _ := ed25519.GenerateKey(rand.Reader)
	der, _ = x509.MarshalPKCS8PrivateKey(edk)
	keys["pkcs8"] = string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE " + "KEY", Bytes: der}))
	// OpenSSH: "openssh-key-v1\0" and random bytes, base64 wrapped at 70.
	body := append([]byte("openssh-key-v1\x00"), make([]byte, 380)...)
	rand.Read(body[15:])
	enc := base64.StdEncoding.EncodeToString(body)
	var b strings.Builder
	b.WriteString("-----BEGIN OPENSSH " + "PRIVATE KEY-----\n")
	for len(enc) > 70 {
		b.WriteString(enc[:70] + "\n")
		enc = enc[70:]
	}
	b.WriteString(enc + "\n-----END OPENSSH " + "PRIVATE KEY-----\n")
	keys["openssh"] = b.String()
	return keys
})

// fake joins parts, so that this file holds no whole token.
func fake(parts ...string) string { return strings.Join(parts, "") }

func TestSecretDetectors(t *testing.T) {
	tests := []struct {
		name, line string
		secret     bool
	}{
		{"slack webhook", fake("url: https://hooks.slack", ".com/services/T0123ABCD/B0456EFGH/", "aZ3kQ9pL2mX8rT4vW7yB1cD6"), true},
		{"slack webhook host only", "see https://hooks.slack.com/ for docs", false},
		{"discord webhook", fake("https://discord", ".com/api/webhooks/123456789012345678/", "Zx9-Kq3Lm7Np2Rt5Vw8Yb1Cd4Fg6Hj0Kl3Mn5Pq7Rs9Tu2Vx4Wz6Ab8Cd0Ef2Gh4Ij6Kl8"), true},
		{"discord docs", "discord.com/api/webhooks/{id}/{token}", false},
		{"yaml password", fake("  password: Xk9fQ", "2mZ8pL4w"), true},
		{"yaml password placeholder", "  password: changeme", false},
		{"yaml password variable", "  password: ${DB_PASSWORD}", false},
		{"yaml secret ref", "  secretName: my-app-tls", false},
		{"bearer header", fake("Authorization: Bearer ", "eyJhbGciOiJIUzI1NiJ9aQ7xZp3Lk9Mn2Bv"), true},
		{"bearer curl", fake(`curl -H "Authorization: Bearer `, `9fK3mQ7pL2xR8tV4wZ6yB1cD5"`), true},
		{"basic header", fake("Authorization: Basic ", "dXNlcjpTM2NyM3RQNHNz"), true},
		{"bearer code", `req.Header.Set("Authorization", "Bearer "+token)`, false},
		{"bearer words", "the bearer token is stored in the keychain", false},
		{"npm", fake("//registry.npmjs.org/:_authToken=npm_", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"), true},
		{"huggingface", fake("HF=hf_", "aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH"), true},
		{"huggingface digits", fake("hf_", "Ab3De5Fg7Hj9Kl1Mn3Pq5Rs7Tu9Vw1Xy3"), true},
		{"sendgrid", fake("SG.", "aB3dE5fG7hJ9kL1mN3pQ5r.", "sT7uV9wX1yZ3aB5cD7eF9gH1jK3mN5pQ7rS9tU1vW3x"), true},
		{"azure storage", fake("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=", strings.Repeat("aB3dE5fG7hJ9kL1m", 5), "Nq8R==;EndpointSuffix=core.windows.net"), true},
		{"azure sas", fake("https://acct.blob.core.windows.net/c?sv=2021-08-06&sr=b&sig=", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5%3D"), true},
		{"twilio key", fake("SK", "0123456789abcdef0123456789abcdef"), true},
		{"twilio token", fake("TWILIO_AUTH_TOKEN=", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"), true},
		{"mailgun", fake("MAILGUN_KEY=key-", "3a16f0d29cd6fd54ac373e8b9d1e4f70"), true},
		{"pypi", fake("password = pypi-", "AgEIcHlwaS5vcmcCJDU3OTM1MjliLWIyYTYtNDEwOC05NzRkLTM0ZjNiOTBlM2Y2MQ"), true},
		{"shopify", fake("shpat_", "0123456789abcdef0123456789abcdef"), true},
		{"square", fake("sq0atp-", "aB3dE5fG7hJ9kL1mN3pQ5r"), true},
		{"digitalocean", fake("dop_v1_", strings.Repeat("0123456789abcdef", 4)), true},
		{"databricks", fake("token = dapi", "0123456789abcdef0123456789abcdef"), true},
		{"openssh header", "-----BEGIN OPENSSH " + "PRIVATE KEY-----", true},
		{"pgp header", "-----BEGIN PGP PRIVATE " + "KEY BLOCK-----", true},
		{"ssh2 header", "---- BEGIN SSH2 ENCRYPTED PRIVATE " + "KEY ----", true},
		{"putty", "PuTTY-User-Key-File-" + "3: ssh-ed25519", true},
		{"key body openssh", fake("b3BlbnNzaC1rZXkt", "djEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"), true},
		{"key body pkcs1", fake("MIIEpAIBAAKCAQEA", "0aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5cD7eF9gH1jK3mN5p"), true},
		{"certificate body", "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ", false},
		{"public key body", "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo", false},
		{"public key header", "-----BEGIN PUBLIC KEY-----", false},
		// GOROOT false positives that must stay passing.
		{"go token map", `	token.MUL: "multiplication",`, false},
		{"go early secret", `	earlySecret = tls13.NewEarlySecret(cipherSuite.hash.New, session.secret)`, false},
		{"go token replace", `		token = strings.ReplaceAll(token, "~1", "/")`, false},
		{"go const", "\tSIOCGLIFTOKEN                 = -0x3f879678", false},
		{"go struct field", "\tToken:    tok,", false},
		{"go case", "\tcase token.EOF:", false},
		{"base64 data", "SI1sJGBIicdICdhICchmDx+EAAAAAABIqQcAAAAPhesDAACAPTHADQAAD4QrAQAAkEi6AAAAAACA", false},
	}
	for _, tt := range tests {
		if got := LineSecret(tt.line); (got != "") != tt.secret {
			t.Errorf("%s: LineSecret(%q) = %q, want secret %v", tt.name, tt.line, got, tt.secret)
		}
	}
}

func TestRulesCompile(t *testing.T) {
	rs := secretRules()
	if len(rs.dropped) > 0 {
		t.Errorf("rules Go's regexp cannot compile: %v", rs.dropped)
	}
	if len(rs.rules) < len(localRules)+200 {
		t.Errorf("only %d rules", len(rs.rules))
	}
	for _, r := range append(append([]ruleSpec(nil), localRules...), gitleaksRules...) {
		if len(r.keywords) == 0 {
			t.Errorf("rule %s has no keyword (the pre-filter would skip it)", r.name)
		}
	}
}

func TestSensitiveNames(t *testing.T) {
	g := DefaultGate()
	blocked := []string{".env_backup", ".env.local", "env.local", ".env-prod", "config/.env.production", "app/prod.env",
		"certs/server.pem.bak", "server.key.old", "id_rsa~", ".id_rsa.swp", ".env.swp", "#.env#", "key.pem.orig", ".env.bak.old",
		".htpasswd", ".git-credentials", "putty.ppk", "vault.kdbx", "AuthKey_ABC123.p8", "my-private-key.asc", "home/.ssh/github",
		"id_ed25519_sk", "terraform.tfstate.backup", "infra/terraform.tfstate", ".vault-token", ".bash_history", ".zsh_history",
		".docker/config.json.bak", "home/u/.config/gh/hosts.yml", ".netrc", "secrets.yaml~"}
	for _, p := range blocked {
		if _, ok := g.PathBlocked(p); !ok {
			t.Errorf("PathBlocked(%s) = false", p)
		}
	}
	open := []string{"main.go", "env.go", "environment.md", "keys.go", "runtime/secret/secret.go", "secrets.py", "backup.go",
		"old/main.go", "id_test.go", "pubkey.asc", "history.go", "docs/env.md", "token.go", "tokenizer_test.go", "README.md.bak"}
	for _, p := range open {
		if reason, ok := g.PathBlocked(p); ok {
			t.Errorf("PathBlocked(%s) = %s", p, reason)
		}
	}
}

func TestFileBlocked(t *testing.T) {
	g := DefaultGate()
	key := testKeys()["rsa"]
	tests := []struct {
		rel, content string
		blocked      bool
	}{
		{".env", "X=1\n", true},
		{"notes.txt", "hello\n" + key + "bye\n", true},
		{"notes.txt", "hello\n" + key[strings.IndexByte(key, '\n')+1:], true}, // the BEGIN line cut off
		{"main.go", "package main\n\nfunc main() {}\n", false},
		{"notes.txt", fake("deploy with token ghp_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n"), true},
	}
	for _, tt := range tests {
		for range 2 { // the second time from the verdict cache
			if _, got := g.FileBlocked(tt.rel, []byte(tt.content)); got != tt.blocked {
				t.Errorf("FileBlocked(%s, %.40q) = %v", tt.rel, tt.content, got)
			}
		}
	}
}

func TestRedactKeyRanges(t *testing.T) {
	g := DefaultGate()
	for name, key := range testKeys() {
		lines := strings.Split(strings.TrimSuffix(key, "\n"), "\n")
		cases := map[string][]string{
			"cat":          lines,
			"tail -n +2":   lines[1:],
			"head -n -1":   lines[:len(lines)-1],
			"tail -n 3":    lines[max(0, len(lines)-3):],
			"grep -v -- -": lines[1 : len(lines)-1],
		}
		numbered := make([]string, len(lines)-1)
		for i, l := range lines[1:] {
			numbered[i] = "     " + string(rune('2'+i%8)) + "\t" + l
		}
		cases["cat -n | tail -n +2"] = numbered
		for how, ls := range cases {
			text := "before\n" + strings.Join(ls, "\n") + "\nafter\n"
			out := g.RedactLines(text)
			want := "before\n" + strings.Repeat(Blocked+"\n", len(ls)) + "after\n"
			if how == "tail -n 3" && len(ls) < 3 {
				continue
			}
			if out != want {
				t.Errorf("%s key, %s: RedactLines =\n%s", name, how, out)
			}
		}
	}
	// A lone line of a key body, and ordinary output, are told apart.
	body := strings.Split(testKeys()["rsa"], "\n")[5]
	if out := g.RedactLines("x\n" + body + "\ny\n"); out != "x\n"+Blocked+"\ny\n" {
		t.Errorf("lone key line: %q", out)
	}
	plain := "ok  \tgithub.com/autarch-dev/autarch/workspace\t1.144s\nPASS\n" + strings.Repeat("0123456789abcdef", 4) + "\n"
	if out := g.RedactLines(plain); out != plain {
		t.Errorf("plain output changed: %q", out)
	}
}

// TestRedactKeepsPaths: a long absolute path (a test's temp folder, a
// module cache) is base64 text with high entropy, yet no key body; every
// tool result passes RedactLines, so it must not be blocked. A one-line
// key body still is.
func TestRedactKeepsPaths(t *testing.T) {
	g := DefaultGate()
	for _, line := range []string{
		"job-42 trace-7 mechanic /tmp/TestToolContextReachesToolsHooksAndLogs1015839462/001/jobs/wt",
		"ok  /root/go/pkg/mod/golang.org/x/tools@v0.30.0/go/packages/packagestest9Kq2/export.go",
	} {
		if got := g.RedactLines(line); got != line {
			t.Errorf("RedactLines(%q) = %q, want it kept", line, got)
		}
	}
	key := "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKjMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvuNMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ"[:64]
	if got := g.RedactLines(key); got == key {
		t.Errorf("a one-line key body was kept: %q", key)
	}
}
