package workspace

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
)

// makeTar returns a tar holding files (name → content), gzipped when gz.
func makeTar(t *testing.T, gz bool, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w *tar.Writer
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(&buf)
		w = tar.NewWriter(zw)
	} else {
		w = tar.NewWriter(&buf)
	}
	for i := 0; i < len(files); i += 2 {
		if err := w.WriteHeader(&tar.Header{Name: files[i], Mode: 0o644, Size: int64(len(files[i+1])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(files[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func makeZip(t *testing.T, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i := 0; i < len(files); i += 2 {
		f, err := w.Create(files[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(files[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestArchiveBlocked: an archive holding a file the gate blocks is blocked
// itself, with a reason naming the entry; an archive of ordinary files is
// not.
func TestArchiveBlocked(t *testing.T) {
	g := DefaultGate()
	const aws = "aws_secret_access_key = \"wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY\"\n"
	inner := makeTar(t, true, "deep/.env", "SECRET_VALUE_x=1\n")
	cases := []struct {
		name  string
		data  []byte
		entry string // "" when not blocked
	}{
		{"tgz with .env", makeTar(t, true, "app/main.go", "package main\n", "app/.env", "SECRET_VALUE_1=abc\n"), "app/.env"},
		{"plain tar with ./.env", makeTar(t, false, "./.env", "SECRET_VALUE_1=abc\n"), "./.env"},
		{"tgz with a key by content", makeTar(t, true, "conf/settings.ini", aws), "conf/settings.ini"},
		{"zip with id_rsa", makeZip(t, "README", "hi", "home/.ssh/id_rsa", "key"), "home/.ssh/id_rsa"},
		{"jar with credentials.json", makeZip(t, "META-INF/MANIFEST.MF", "x", "credentials.json", "{}"), "credentials.json"},
		{"zip holding a tgz holding .env", makeZip(t, "bundle.tgz", string(inner)), "deep/.env"},
		{"clean tgz", makeTar(t, true, "a.go", "package a\n", "b.txt", "hello\n"), ""},
		{"clean zip", makeZip(t, "a.go", "package a\n"), ""},
		{"truncated gzip", makeTar(t, true, "a.go", "package a\n")[:20], ""},
		{"garbage with zip magic", []byte("PK\x03\x04garbage"), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reason, blocked := g.ContentBlocked(c.data)
			if blocked != (c.entry != "") {
				t.Fatalf("blocked = %v (%q), want %v", blocked, reason, c.entry != "")
			}
			if blocked && !strings.Contains(reason, c.entry) {
				t.Errorf("reason %q does not name the entry %q", reason, c.entry)
			}
			if _, blocked := g.FileBlocked("dist/release.bin", c.data); blocked != (c.entry != "") {
				t.Errorf("FileBlocked = %v, want %v", blocked, c.entry != "")
			}
		})
	}
}

// TestArchiveBomb: a gzip bomb costs a bounded amount of work and is not
// blocked for it.
func TestArchiveBomb(t *testing.T) {
	var buf bytes.Buffer
	// BestSpeed: the bomb is as big once open (128 MiB from 160 KiB), and
	// making it costs a fifth of the default level's work (which, 2.5
	// minutes at load 36 under -race, was most of this package's time).
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	w := tar.NewWriter(zw)
	const size = 128 << 20
	if err := w.WriteHeader(&tar.Header{Name: "zeros", Mode: 0o644, Size: size, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	for range size / len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	_ = w.Close()
	_ = zw.Close()
	if buf.Len() > size/256 {
		t.Fatalf("the bomb is %d bytes: not one", buf.Len())
	}
	if reason, blocked := DefaultGate().ContentBlocked(buf.Bytes()); blocked {
		t.Fatalf("a bomb of zeros is blocked: %s", reason)
	}
}
