package tools

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzSecretName checks secretName against the secretKey regexp it
// stands in for.
func FuzzSecretName(f *testing.F) {
	for _, s := range []string{
		"API_KEY", "token", "x-Secret-y", "PASSWD", "pwd", "credentials", "Auth", "jwt", "COOKIE", "private_key",
		"SESSION", "signature", "salt", "DSN", "cert", "\u212aey", "\u017fecret", "pa\u017f\u017f", "tok", "ke", "", "MIIEvQIBADANBgkq",
		"sEsSiOn", "kEY", "Proc-Type", "Subject Public Key Info", "ä-key", "DSn", "cerT",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := secretName(s), secretKey().MatchString(s); got != want {
			t.Fatalf("secretName(%q) = %v, the regexp says %v", s, got, want)
		}
	})
}

// TestFoldASCII: every rune that case folding (unicode.SimpleFold, as
// regexp's (?i)) ties to an ASCII letter folds to it in lower case.
func TestFoldASCII(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < utf8.RuneSelf && unicode.IsLetter(f) && foldASCII(r) != unicode.ToLower(f) {
				t.Errorf("foldASCII(%U) = %U, want %c", r, foldASCII(r), unicode.ToLower(f))
			}
		}
	}
}

// TestSecretNameOnSecretFiles: secretName agrees with the regexp on every
// word and every text before '=' or ':' of the secret files (keys,
// certificates, their dumps) under $(go env GOROOT)/src.
func TestSecretNameOnSecretFiles(t *testing.T) {
	var files []string
	for _, pat := range []string{"crypto/*/testdata/*", "crypto/*/*/testdata/*", "net/http/testdata/*", "crypto/x509/testdata/*", "encoding/pem/*"} {
		m, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", pat))
		files = append(files, m...)
	}
	words := 0
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil || len(data) > 1<<20 {
			continue
		}
		for line := range strings.SplitSeq(string(data), "\n") {
			names := strings.Fields(line)
			if i := strings.IndexAny(line, "=:"); i > 0 {
				names = append(names, line[:i])
			}
			for _, n := range names {
				words++
				if got, want := secretName(n), secretKey().MatchString(n); got != want {
					t.Fatalf("%s: secretName(%q) = %v, the regexp says %v", p, n, got, want)
				}
			}
		}
	}
	if words < 10000 {
		t.Fatalf("only %d words in %d files", words, len(files))
	}
	t.Logf("%d words in %d files", words, len(files))
}
