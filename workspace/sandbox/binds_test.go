package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinds: a Spec.Binds source replaces the destination read-only, also
// inside a read-only .git; the real destination is neither visible nor
// writable; a bind whose source is missing refuses the command rather
// than showing the real directory.
func TestBinds(t *testing.T) {
	f := newFixture(t)
	objects := filepath.Join(f.dir, ".git", "objects")
	filtered := filepath.Join(t.TempDir(), "filtered")
	for p, content := range map[string]string{filepath.Join(objects, "real"): "real-object-0007\n", filepath.Join(filtered, "shown"): "filtered\n"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := Spec{ReadOnly: []string{".git"}, Binds: []Bind{{Source: filtered, Dest: ".git/objects"}},
		Command: "cat .git/objects/shown; cat .git/objects/real; ls -a .git/objects; echo x > .git/objects/new; echo x >> .git/objects/shown"}
	res := f.run(t, spec)
	if !strings.Contains(res.Stdout, "filtered") || strings.Contains(res.Stdout+res.Stderr, "real-object-0007") {
		t.Errorf("the bind does not replace the directory: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(filtered, "new")); err == nil {
		t.Error("a command wrote into the bound directory")
	}
	if b, _ := os.ReadFile(filepath.Join(filtered, "shown")); string(b) != "filtered\n" {
		t.Errorf("a command changed the bound directory: %q", b)
	}
	spec.Binds = []Bind{{Source: filepath.Join(t.TempDir(), "missing"), Dest: ".git/objects"}}
	if _, err := f.sb.Run(context.Background(), spec); err == nil {
		t.Error("a bind with a missing source ran the command (it would see the real directory)")
	}
	spec.Binds = []Bind{{Source: "relative", Dest: ".git/objects"}}
	if _, err := f.sb.Run(context.Background(), spec); err == nil {
		t.Error("a bind with a relative source ran the command")
	}
}
