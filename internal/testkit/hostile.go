package testkit

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// PlantEndlessFiles plants in dir the files that never end or are too
// large to read whole, as an agent or a cloned repository could: zero, a
// symlink to /dev/zero; zerodev, a character device like /dev/zero (only
// where mknod is allowed: check with os.Lstat); sparse.img, a 20 GiB
// sparse file of zeros; huge.log, 20 GiB whose first lines are text.
func PlantEndlessFiles(t testing.TB, dir string) {
	t.Helper()
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero")); err != nil {
		t.Fatal(err)
	}
	syscall.Mknod(filepath.Join(dir, "zerodev"), syscall.S_IFCHR|0o666, 1<<8|5) // (1,5) is /dev/zero
	for name, head := range map[string]string{"sparse.img": "", "huge.log": strings.Repeat("a line of text\n", 1000)} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(head), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, 20<<30); err != nil {
			t.Fatal(err)
		}
	}
}
