package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

func openRoot(t testing.TB, dir string) *Root {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestClean(t *testing.T) {
	dir := t.TempDir()
	r := openRoot(t, dir)
	tests := []struct {
		in, want string
		outside  bool
	}{
		{"a/b.go", "a/b.go", false},
		{"./a//b.go", "a/b.go", false},
		{"a/../b.go", "b.go", false},
		{".", ".", false},
		{r.Dir() + "/x/y.go", "x/y.go", false},
		{r.Dir(), ".", false},
		{"../etc/passwd", "", true},
		{"a/../../x", "", true},
		{"/etc/passwd", "", true},
		{filepath.Dir(r.Dir()) + "/other", "", true},
	}
	for _, tt := range tests {
		got, err := r.Clean(tt.in)
		if tt.outside {
			if !errors.Is(err, ErrOutside) {
				t.Errorf("Clean(%q) = %q, %v; want ErrOutside", tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Clean(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := r.Clean(""); err == nil || !strings.Contains(err.Error(), "empty path") {
		t.Errorf("Clean(\"\") = %v", err)
	}
}

func TestSymlinkEscapesAreRefused(t *testing.T) {
	outside := t.TempDir()
	testkit.WriteFile(t, filepath.Join(outside, "secret.txt"), "top secret")
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "inside.txt"), "hello")
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("inside.txt", filepath.Join(dir, "ok.txt")); err != nil {
		t.Fatal(err)
	}
	r := openRoot(t, dir)
	for _, rel := range []string{"link.txt", "linkdir/secret.txt"} {
		if _, err := r.ReadFile(rel); !errors.Is(err, ErrOutside) {
			t.Errorf("ReadFile(%s) = %v, want ErrOutside", rel, err)
		}
	}
	if err := r.WriteFile("linkdir/new.txt", []byte("x")); err == nil {
		t.Error("write through an escaping symlink succeeded")
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Error("a file was written outside the root")
	}
	if b, err := r.ReadFile("ok.txt"); err != nil || string(b) != "hello" {
		t.Errorf("symlink inside the root: %q, %v", b, err)
	}
}

func TestWriteFileAtomicKeepsMode(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "run.sh"), "#!/bin/sh\n")
	os.Chmod(filepath.Join(dir, "run.sh"), 0o755)
	r := openRoot(t, dir)
	if err := r.WriteFile("run.sh", []byte("#!/bin/sh\necho hi\n")); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(dir, "run.sh"))
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v, want 0755", fi.Mode().Perm())
	}
	if err := r.WriteFile("new/dir/file.txt", []byte("x")); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".autarch-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
	if err := r.WriteFile("new", []byte("x")); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("writing over a directory: %v", err)
	}
}

func TestIgnore(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, ".gitignore"), "*.log\nbuild/\n!keep.log\n/rootonly.txt\n")
	testkit.WriteFile(t, filepath.Join(dir, ".autarchignore"), "fixtures/big/\n")
	testkit.WriteFile(t, filepath.Join(dir, "sub/.gitignore"), "local.txt\n*.tmp\n")
	testkit.WriteFile(t, filepath.Join(dir, ".git/info/exclude"), "excluded.md\n")
	files := []string{"a.go", "x.log", "keep.log", "build/out.bin", "sub/build/x", "sub/local.txt", "sub/b.go", "sub/c.tmp",
		"local.txt", "rootonly.txt", "sub/rootonly.txt", "fixtures/big/f", "fixtures/small/f", "excluded.md", ".git/HEAD"}
	for _, f := range files {
		testkit.WriteFile(t, filepath.Join(dir, f), "x")
	}
	r := openRoot(t, dir)
	ig := NewIgnore(r)
	ignored := map[string]bool{"x.log": true, "build/out.bin": true, "sub/build/x": true, "sub/local.txt": true, "sub/c.tmp": true,
		"rootonly.txt": true, "fixtures/big/f": true, "excluded.md": true, ".git/HEAD": true}
	for _, f := range files {
		if got := ig.Match(f, false); got != ignored[f] {
			t.Errorf("Match(%s) = %v, want %v", f, got, ignored[f])
		}
	}
	var walked []string
	err := ig.Walk(context.Background(), ".", func(rel string, d fs.DirEntry) error {
		if !d.IsDir() {
			walked = append(walked, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".autarchignore", ".gitignore", "a.go", "fixtures/small/f", "keep.log", "local.txt", "sub/.gitignore", "sub/b.go", "sub/rootonly.txt"}
	if strings.Join(walked, ",") != strings.Join(want, ",") {
		t.Errorf("walked %v\nwant   %v", walked, want)
	}
}

func TestGate(t *testing.T) {
	g := DefaultGate()
	for _, p := range []string{".env", "config/.env.production", "certs/server.pem", "home/.ssh/id_rsa", "id_ed25519.pub", ".npmrc", "deploy/credentials.json", ".aws/credentials", "x/.kube/config", "prod.tfvars", "config/secrets.yaml", "secret.json"} {
		if _, blocked := g.PathBlocked(p); !blocked {
			t.Errorf("PathBlocked(%s) = false", p)
		}
	}
	for _, p := range []string{"main.go", "README.md", "env.go", "docs/environment.md", "keys.go", "runtime/secret/secret.go", "secrets.py"} {
		if reason, blocked := g.PathBlocked(p); blocked {
			t.Errorf("PathBlocked(%s) = %s", p, reason)
		}
	}
	secrets := []string{
		"-----BEGIN RSA PRIVATE KEY-----",
		"-----BEGIN OPENSSH PRIVATE KEY-----",
		"aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
		"token: ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
		`OPENAI_API_KEY="sk-proj-abcdefghijklmnopqrstuvwxyz012345"`,
		`slack = "xoxb-123456789012-abcdefghijkl"`,
		`password = "hunter2hunter2hunter2"`,
		"postgres://admin:s3cretpass@db.internal:5432/app",
		"glpat-abcdefghijklmnopqrstu",
		"API_TOKEN=abcdefghijklmnopqrstuvwxyz",
		"export DB_PASSWORD=Xk9fQ2mZ8pL4wR7t",
		`client_secret: "9f8e7d6c5b4a39281706"`,
		`	"api_key": "Zq0xLm4Rt8Wv2Ky6Np3S",`,
		`db_password = "S3cure:Pass;2024!"`,
	}
	for _, s := range secrets {
		if LineSecret(s) == "" {
			t.Errorf("LineSecret(%q) found nothing", s)
		}
	}
	notSecrets := []string{
		`func parseToken(s string) error {`, `password := os.Getenv("PW")`, "skip-this-line", `key = "short"`,
		// Code from $(go env GOROOT)/src that an earlier rule refused.
		`	token.MUL: "multiplication",`,
		`		token = strings.ReplaceAll(token, "~1", "/")`,
		`	earlySecret = tls13.NewEarlySecret(cipherSuite.hash.New, session.secret)`,
		`const _token_name = "EOFnameliteralopop=opop=:=<-*([{)]},;:....breakcase"`,
		`	encodeUserPassword:   "encodeUserPassword",`,
		`					lastToken = functionCompleter(lastToken, fns)`,
		`	"secret":                               "\u3299\ufe0f",`,
	}
	for _, s := range notSecrets {
		if name := LineSecret(s); name != "" {
			t.Errorf("LineSecret(%q) = %s (false positive)", s, name)
		}
	}
	text := "a := 1\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\nabc\n-----END PRIVATE KEY-----\nkey = AKIAIOSFODNN7EXAMPLE\nb := 2\n"
	want := "a := 1\n[blocked]\n[blocked]\n[blocked]\n[blocked]\n[blocked]\nb := 2\n"
	if got := g.RedactLines(text); got != want {
		t.Errorf("RedactLines =\n%s\nwant\n%s", got, want)
	}
	if _, err := NewGate("[bad"); err == nil || !strings.Contains(err.Error(), "doublestar") {
		t.Errorf("NewGate([bad) = %v", err)
	}
}

func TestIsBinary(t *testing.T) {
	tests := []struct {
		data string
		want bool
	}{
		{"package main\n", false},
		{"", false},
		{"hello\x00world", true},
		{strings.Repeat("a", 80) + strings.Repeat("\x01", 20), true},
		{strings.Repeat("a", 95) + strings.Repeat("\x01", 5), false},
		{"\tcolumns\r\n\fpage", false},
	}
	for _, tt := range tests {
		if got := IsBinary([]byte(tt.data)); got != tt.want {
			t.Errorf("IsBinary(%q) = %v, want %v", tt.data, got, tt.want)
		}
	}
}

// FuzzConfinement checks that no path, cleaned or raw, reads or writes
// outside the root, symlinks included.
func FuzzConfinement(f *testing.F) {
	for _, s := range []string{"a.txt", "../outside/secret.txt", "link/secret.txt", "/etc/passwd", "a/../../outside", "sub/../link/x", "..", "./././a.txt", "link/../a.txt"} {
		f.Add(s)
	}
	base := f.TempDir()
	outside := filepath.Join(base, "outside")
	dir := filepath.Join(base, "root")
	os.MkdirAll(outside, 0o755)
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("SECRET"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("inside"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "link"))
	r, err := Open(dir)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, p string) {
		rel, err := r.Clean(p)
		if err == nil {
			abs := filepath.Join(r.Dir(), filepath.FromSlash(rel))
			if abs != r.Dir() && !strings.HasPrefix(abs, r.Dir()+string(filepath.Separator)) {
				t.Fatalf("Clean(%q) = %q escapes", p, rel)
			}
		} else {
			rel = p
		}
		if b, err := r.ReadFile(rel); err == nil && strings.Contains(string(b), "SECRET") {
			t.Fatalf("read outside content through %q", p)
		}
		if err := r.WriteFile(rel, []byte("x")); err == nil {
			r.Remove(rel)
		}
		if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != "SECRET" {
			t.Fatalf("outside file changed through %q", p)
		}
		if entries, _ := os.ReadDir(outside); len(entries) != 1 {
			t.Fatalf("a file was created outside through %q", p)
		}
	})
}

// FuzzRedactLines: redaction keeps the line structure and leaves no line
// that a secret rule still recognises.
func FuzzRedactLines(f *testing.F) {
	for _, s := range []string{
		"a := 1\n-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n",
		`password = "hunter2hunter2hunter2"` + "\nx\n",
		"API_TOKEN=abcdefghijklmnopqrstuvwxyz\r\n",
		`token.MUL: "multiplication",`,
		"MIIEpAIBAAKCAQEA0aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5cD7eF9gH1jK3mN5p\nAbCdEfGhIjKlMnOpQrStUvWxYz0123456789+/AbCdEfGhIjKlMnOpQrStUvWxYz01\nQUJD\n-----END RSA PRIVATE KEY-----\n",
		"Authorization: Bearer aQ7xZp3Lk9Mn2Bv8Cd4Fg\n",
	} {
		f.Add(s)
	}
	g := DefaultGate()
	f.Fuzz(func(t *testing.T, text string) {
		out := g.RedactLines(text)
		if strings.Count(out, "\n") != strings.Count(text, "\n") {
			t.Fatalf("line count changed: %q → %q", text, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if name := LineSecret(strings.TrimRight(l, "\r")); name != "" {
				t.Fatalf("line %q still holds a %s after redaction of %q", l, name, text)
			}
		}
	})
}
