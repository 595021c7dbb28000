package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadShownRefusesOtherNamesOfBlockedFiles: a file the gate blocks by
// its name is not shown under another one — a symlink to it, a symlinked
// folder above it, a hard link of it anywhere in the tree (an ignored or
// hidden folder too) — while ordinary links to ordinary files still read.
func TestReadShownRefusesOtherNamesOfBlockedFiles(t *testing.T) {
	const secret = `{"outputs":{"db":{"value":"zzTfstatePass1"}}}` + "\n"
	for _, tc := range []struct {
		name    string
		setup   func(dir string) error
		read    string
		blocked string // a word the refusal names; "" when the read must succeed
	}{
		{"symlink to a blocked file", func(d string) error {
			return os.Symlink("../infra/terraform.tfstate", filepath.Join(d, "docs/notes.txt"))
		}, "docs/notes.txt", "infra/terraform.tfstate"},
		{"symlinked folder above a blocked file", func(d string) error {
			return os.Symlink("infra", filepath.Join(d, "docs2"))
		}, "docs2/terraform.tfstate", "tfstate"},
		{"hard link of a blocked file", func(d string) error {
			return os.Link(filepath.Join(d, "infra/terraform.tfstate"), filepath.Join(d, "docs/notes.txt"))
		}, "docs/notes.txt", "infra/terraform.tfstate"},
		{"hard link from a hidden ignored folder", func(d string) error {
			if err := os.MkdirAll(filepath.Join(d, "node_modules/.cache"), 0o755); err != nil {
				return err
			}
			if err := os.Rename(filepath.Join(d, "infra/terraform.tfstate"), filepath.Join(d, "node_modules/.cache/.env")); err != nil {
				return err
			}
			return os.Link(filepath.Join(d, "node_modules/.cache/.env"), filepath.Join(d, "docs/notes.txt"))
		}, "docs/notes.txt", "node_modules/.cache/.env"},
		{"symlink to an ordinary file", func(d string) error {
			return os.Symlink("readme.md", filepath.Join(d, "docs/link.md"))
		}, "docs/link.md", ""},
		{"hard link of an ordinary file", func(d string) error {
			return os.Link(filepath.Join(d, "docs/readme.md"), filepath.Join(d, "docs/copy.md"))
		}, "docs/copy.md", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range map[string]string{"docs/readme.md": "docs\n", "infra/terraform.tfstate": secret, ".gitignore": "node_modules/\n"} {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := tc.setup(dir); err != nil {
				t.Fatal(err)
			}
			r := openRoot(t, dir)
			g, err := NewGate()
			if err != nil {
				t.Fatal(err)
			}
			data, _, err := g.ReadShown(r, tc.read, MaxReadSize)
			var be *BlockedError
			switch {
			case tc.blocked == "" && err != nil:
				t.Fatalf("ReadShown(%s) = %v, want its content", tc.read, err)
			case tc.blocked == "":
				return
			case !errors.As(err, &be):
				t.Fatalf("ReadShown(%s) = %q, %v; want it blocked as another name of %s", tc.read, data, err, tc.blocked)
			case !strings.Contains(be.Reason, tc.blocked):
				t.Errorf("the refusal %q does not name %s", be.Reason, tc.blocked)
			}
		})
	}
}

// TestBlockedAliasRefusesAFileSwappedAfterTheRead: when the path no
// longer leads to the file that was read, its names cannot be vouched
// for.
func TestBlockedAliasRefusesAFileSwappedAfterTheRead(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := openRoot(t, dir)
	_, st, err := r.ReadFileStamp("a.txt", MaxReadSize)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "b.txt"), filepath.Join(dir, "a.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.BlockedAlias("a.txt", st, func(string) bool { return false }); !errors.Is(err, ErrChangedWhileRead) {
		t.Fatalf("BlockedAlias after a swap = %v, want ErrChangedWhileRead", err)
	}
}
