package workspace

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenWalkedText: a binary file is read no further than the part
// IsBinary looks at; a text file whole, with its stamp, whatever follows
// that part (IsBinary decides on it alone, as for a whole read).
func TestOpenWalkedText(t *testing.T) {
	dir := t.TempDir()
	text := bytes.Repeat([]byte("func main() {}\n"), 2000)
	lateNUL := append(bytes.Clone(text), 0, 1, 2)
	archive := append([]byte("PK\x03\x04\x00\x00"), bytes.Repeat([]byte{0, 7, 9}, 20000)...)
	for name, data := range map[string][]byte{"a.go": text, "late.txt": lateNUL, "m.zip": archive, "small.bin": {0, 1}} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root := openRoot(t, dir)
	tests := []struct {
		name   string
		want   []byte
		binary bool
		read   int // bytes read from the file
	}{
		{"a.go", text, false, len(text)},
		{"late.txt", lateNUL, false, len(lateNUL)},
		{"m.zip", nil, true, binaryPrefix},
		{"small.bin", nil, true, 2},
	}
	var f WalkedFile
	var buf []byte
	for _, tc := range tests {
		data, binary, err := root.OpenWalkedText(&f, tc.name, buf, MaxGrepFileSize)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if binary != tc.binary || !bytes.Equal(data, tc.want) {
			t.Errorf("%s: binary %v and %d bytes, want %v and %d", tc.name, binary, len(data), tc.binary, len(tc.want))
		}
		if tc.binary != IsBinary(readAll(t, filepath.Join(dir, tc.name))) {
			t.Errorf("%s: IsBinary on the whole file disagrees", tc.name)
		}
		pos, err := syscallSeekCurrent(f.fd)
		if err != nil {
			t.Fatal(err)
		}
		if int(pos) != tc.read {
			t.Errorf("%s: read %d bytes of the file, want %d", tc.name, pos, tc.read)
		}
		if !tc.binary && f.Stamp() == (Stamp{}) {
			t.Errorf("%s: no stamp for a file read whole", tc.name)
		}
		f.Close()
		if data != nil {
			buf = data
		}
	}
}

func readAll(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// syscallSeekCurrent is the file offset of fd: how much a read took.
func syscallSeekCurrent(fd int) (int64, error) { return syscall.Seek(fd, 0, 1) }
