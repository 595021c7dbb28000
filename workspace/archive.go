package workspace

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Limits of the archive rule: an archive is opened only to this depth of
// nesting, at most maxArchiveEntries entries are looked at, at most
// maxArchiveEntryScan bytes of each entry are scanned for secrets and at
// most maxArchiveBytes are decompressed in all (a zip or gzip bomb costs
// no more than that).
const (
	maxArchiveDepth     = 3
	maxArchiveEntries   = 10000
	maxArchiveEntryScan = 1 << 20
	maxArchiveBytes     = 64 << 20
)

// archiveSecret names the first entry of an archive (tar, tar.gz/tgz,
// tar.bz2, zip and its kin: jar, whl, apk…) that the gate blocks, by its
// name or by its content, as a reason; "" when data is no archive or
// holds no such entry. Archives are recognised by their content, whatever
// the file is called.
func (g *Gate) archiveSecret(data []byte) string {
	budget := int64(maxArchiveBytes)
	return g.archiveEntrySecret(data, 0, &budget)
}

func (g *Gate) archiveEntrySecret(data []byte, depth int, budget *int64) string {
	if depth >= maxArchiveDepth {
		return ""
	}
	switch {
	case bytes.HasPrefix(data, []byte("PK\x03\x04")) || bytes.HasPrefix(data, []byte("PK\x05\x06")):
		return g.zipSecret(data, depth, budget)
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return ""
		}
		return g.tarSecret(zr, depth, budget)
	case bytes.HasPrefix(data, []byte("BZh")):
		return g.tarSecret(bzip2.NewReader(bytes.NewReader(data)), depth, budget)
	case len(data) >= 262 && bytes.HasPrefix(data[257:], []byte("ustar")):
		return g.tarSecret(bytes.NewReader(data), depth, budget)
	}
	return ""
}

// tarSecret reads a tar stream (perhaps decompressed on the fly).
func (g *Gate) tarSecret(r io.Reader, depth int, budget *int64) string {
	lr := &budgetReader{r: r, budget: budget}
	tr := tar.NewReader(lr)
	for range maxArchiveEntries {
		h, err := tr.Next()
		if err != nil {
			return ""
		}
		if h.Typeflag != tar.TypeReg && h.Typeflag != tar.TypeRegA {
			continue
		}
		if reason := g.entrySecret(h.Name, tr, h.Size, depth, budget); reason != "" {
			return reason
		}
	}
	return ""
}

// zipSecret reads a zip archive.
func (g *Gate) zipSecret(data []byte, depth int, budget *int64) string {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return ""
	}
	for i, f := range zr.File {
		if i >= maxArchiveEntries {
			break
		}
		if f.FileInfo().IsDir() {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			continue
		}
		reason := g.entrySecret(f.Name, &budgetReader{r: rc, budget: budget}, int64(f.UncompressedSize64), depth, budget)
		_ = rc.Close()
		if reason != "" {
			return reason
		}
	}
	return ""
}

// entrySecret judges one entry: its name, then the first
// maxArchiveEntryScan bytes of its content (an archive inside is opened
// in turn).
func (g *Gate) entrySecret(name string, r io.Reader, size int64, depth int, budget *int64) string {
	if reason, blocked := g.PathBlocked(cleanEntry(name)); blocked {
		return entryReason(name, reason)
	}
	if size <= 0 || *budget <= 0 {
		return ""
	}
	data, err := io.ReadAll(io.LimitReader(r, min(size, maxArchiveEntryScan)))
	if err != nil && len(data) == 0 {
		return ""
	}
	if n := firstSecret(data); n != "" {
		return entryReason(name, "File contains sensitive content ("+n+")")
	}
	if inner := g.archiveEntrySecret(data, depth+1, budget); inner != "" {
		return fmt.Sprintf("archive entry %q holds an archive: %s", name, inner)
	}
	return ""
}

// cleanEntry is an entry name as a relative path ("./a/.env" → "a/.env").
func cleanEntry(name string) string {
	for {
		switch {
		case strings.HasPrefix(name, "/"):
			name = name[1:]
		case strings.HasPrefix(name, "./"):
			name = name[2:]
		default:
			return name
		}
	}
}

func entryReason(name, reason string) string {
	return fmt.Sprintf("File is an archive holding a secret file: entry %q (%s)", name, reason)
}

// errArchiveBudget ends reading once the decompression budget is spent.
var errArchiveBudget = errors.New("archive decompression budget spent")

// budgetReader counts what is decompressed against a shared budget.
type budgetReader struct {
	r      io.Reader
	budget *int64
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if *b.budget <= 0 {
		return 0, errArchiveBudget
	}
	if int64(len(p)) > *b.budget {
		p = p[:*b.budget]
	}
	n, err := b.r.Read(p)
	*b.budget -= int64(n)
	return n, err
}
