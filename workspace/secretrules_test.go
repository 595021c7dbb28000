package workspace

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestBroadDetectors: secret keys with punctuation, DATABASE_URL-style
// query passwords, and encodings of private keys, line by line.
func TestBroadDetectors(t *testing.T) {
	django := fake("SECRET_KEY = 'django-insecure-", "k#8$v!q@w^z&3x(p)u_r+e=t%y*9b2m7n'")
	tests := []struct {
		name, line string
		secret     bool
	}{
		{"django", django, true},
		{"django double quotes", fake(`SECRET_KEY = "x7#k!`, `Qz@9$wL&2m^P(v)R*tB+e=Y%u"`), true},
		{"django env", fake("DJANGO_SECRET_KEY=k#8$v!q@w^z", "&3x(p)u_r+e=t%y*9b2"), true},
		{"django env export", fake("export SECRET_KEY=k#8$v!q@w^z", "&3x(p)u_r+e=t%y*9b2"), true},
		{"rails", fake(`config.secret_key_base = "9f8e7d6c5b4a`, `3928$1706f5e4d3c2b1a0!"`), true},
		{"rails yaml", fake("  secret_key_base: 8f3a9c!e2b7d", "4f1a6c0e9b3d5a7c2e8f1b4d6a9c"), true},
		{"flask", fake("app.config['SECRET_KEY'] = 'f3#k9!", "Lq2@Zp7$wX4^'"), true},
		{"flask attribute", fake(`app.secret_key = b'_5#y2L"F4Q8z`, `\n\xec]/'`), true},
		{"jwt env", fake("JWT_SECRET=s3cr3t!@#$%^&*()", "_+k9Lm2Qx"), true},
		{"jwt json", fake(`  "jwtSecret": "Zq8!w#3mLp$`, `9vX&2kTr*"`), true},
		{"jwt yaml", fake("jwt_secret_key: Zq8!w#3mLp$", "9vX&2kTr*7"), true},
		{"database url query", fake("DATABASE_URL=postgres://db.internal:5432/app?sslmode=require&password=", "Xk9fQ2mZ8p"), true},
		{"mongodb url query", fake(`uri = "mongodb://db/app?authSource=admin;pwd=`, `Q7w!e9Rt2y"`), true},
		{"url token", fake("https://api.example.com/v1/items?access_token=", "aB3dE5fG7hJ9kL1m"), true},
		// Negatives: code, placeholders, variables.
		{"django from env", `SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]`, false},
		{"django get_random", `SECRET_KEY = get_random_secret_key()`, false},
		{"secret from call", `SECRET_KEY=secrets.token_hex(32)`, false},
		{"rails erb", `  secret_key_base: <%= ENV["SECRET_KEY_BASE"] %>`, false},
		{"placeholder", `SECRET_KEY = 'your-secret-key-here-change-me'`, false},
		{"template", `SECRET_KEY = '{{ django_secret_key }}'`, false},
		{"shell variable", `JWT_SECRET="${JWT_SECRET_FROM_VAULT}"`, false},
		{"yaml ref", `  jwt_secret: ${JWT_SECRET}`, false},
		{"go struct field", `	SigningKey: signingKey,`, false},
		{"go call", `	secretKey = deriveSecret(c.hash, c.masterSecret)`, false},
		{"url query words", "see https://example.com/login?password=secret for the form", false},
		{"url variable", `url := "postgres://db/app?password=" + password`, false},
		{"hex of a certificate header", hex.EncodeToString([]byte("-----" + "BEGIN CERTIFICATE-----")), false},
		{"hex data", "2d2d2d2d2d2d2d2d2d2d0a4865787c", false},
		{"base64 of a certificate header", base64.StdEncoding.EncodeToString([]byte("-----" + "BEGIN CERTIFICATE-----\n")), false},
	}
	for _, tt := range tests {
		if got := LineSecret(tt.line); (got != "") != tt.secret {
			t.Errorf("%s: LineSecret(%q) = %q, want secret %v", tt.name, tt.line, got, tt.secret)
		}
	}
}

// dumps are the ways a command or a file shows a key encoded: every one
// must be blocked as content.
func dumps(key string) map[string]string {
	b := []byte(key)
	h := hex.EncodeToString(b)
	out := map[string]string{
		"hex one line":    h,
		"hex upper":       strings.ToUpper(h),
		"xxd -p":          wrap(h, 60),
		"base64 one line": base64.StdEncoding.EncodeToString(b),
		"base64 -w 76":    wrap(base64.StdEncoding.EncodeToString(b), 76),
		"base64 -w 64":    wrap(base64.StdEncoding.EncodeToString(b), 64),
		"base64 of body": base64.StdEncoding.EncodeToString(b[strings.IndexByte(key, '\n')+1:]) +
			"\n",
	}
	var xxd, od, esc, carr strings.Builder
	for i := 0; i < len(b); i += 16 {
		line := b[i:min(i+16, len(b))]
		fmt.Fprintf(&xxd, "%08x: ", i)
		for j := 0; j < len(line); j += 2 {
			fmt.Fprintf(&xxd, "%x ", line[j:min(j+2, len(line))])
		}
		fmt.Fprintf(&xxd, " %q\n", line)
		fmt.Fprintf(&od, "%07o", i)
		for _, c := range line {
			fmt.Fprintf(&od, " %02x", c)
			fmt.Fprintf(&esc, `\x%02x`, c)
			fmt.Fprintf(&carr, "0x%02x, ", c)
		}
		od.WriteByte('\n')
		esc.WriteString("\"\n\"")
		carr.WriteByte('\n')
	}
	out["xxd"] = xxd.String()
	out["od -tx1"] = od.String()
	out["\\x escapes"] = esc.String()
	out["C array"] = carr.String()
	return out
}

func wrap(s string, n int) string {
	var b strings.Builder
	for len(s) > n {
		b.WriteString(s[:n] + "\n")
		s = s[n:]
	}
	return b.String() + s + "\n"
}

func TestEncodedPrivateKeysBlocked(t *testing.T) {
	g := DefaultGate()
	for kind, key := range testKeys() {
		for form, text := range dumps(key) {
			if form == "base64 of body" {
				continue // base64 of base64: the body's own bytes are random
			}
			if _, blocked := g.ContentBlocked([]byte(text)); !blocked {
				t.Errorf("%s key as %s not blocked:\n%.300s", kind, form, text)
			}
		}
	}
	// The encodings of a certificate and of a public key pass.
	for _, pub := range []string{
		"-----" + "BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----\n",
		"-----" + "BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END PUBLIC KEY-----\n",
	} {
		for form, text := range dumps(pub) {
			if reason, blocked := g.ContentBlocked([]byte(text)); blocked {
				t.Errorf("public material as %s blocked (%s):\n%.300s", form, reason, text)
			}
		}
	}
}

// TestOwnRulesPass: the rule sources and their tests do not block
// themselves (commands and tools must be able to read them).
func TestOwnRulesPass(t *testing.T) {
	for _, f := range []string{"secretrules.go", "secretrules_gitleaks.go"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if reason, blocked := DefaultGate().ContentBlocked(data); blocked {
			t.Errorf("%s blocked: %s", f, reason)
		}
	}
}
