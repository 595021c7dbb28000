//go:build !linux

package verify

import (
	"encoding/binary"
	"io/fs"
	"os"
)

// stamp is what changes when a file's content does: its size and mtime
// (gates run confined on Linux only, where the stamp has ctime too).
func stamp(fi fs.FileInfo) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(fi.Size()))
	return binary.LittleEndian.AppendUint64(b, uint64(fi.ModTime().UnixNano()))
}

// openNoFollow opens the file at p for reading.
func openNoFollow(p string) (*os.File, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fs.ErrInvalid
	}
	return os.Open(p)
}
