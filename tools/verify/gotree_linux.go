package verify

import (
	"encoding/binary"
	"io/fs"
	"os"
	"syscall"
)

// stamp is what changes when a file's content does: size, mtime, and
// ctime and inode, which no user-space call sets back.
func stamp(fi fs.FileInfo) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(fi.Size()))
	b = binary.LittleEndian.AppendUint64(b, uint64(fi.ModTime().UnixNano()))
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		for _, v := range []uint64{st.Dev, st.Ino, uint64(st.Ctim.Sec), uint64(st.Ctim.Nsec), uint64(st.Nlink)} {
			b = binary.LittleEndian.AppendUint64(b, v)
		}
	}
	return b
}

// openNoFollow opens the file at p for reading, failing on a symlink,
// without blocking on a FIFO.
func openNoFollow(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
