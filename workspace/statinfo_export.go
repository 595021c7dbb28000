package workspace

import (
	"io/fs"
	"syscall"
)

// StatFileInfo is the fs.FileInfo of a file named name whose stat data
// is st (Sys is its *syscall.Stat_t, as StampOf reads it).
func StatFileInfo(name string, st syscall.Stat_t) fs.FileInfo { return statInfo{name: name, st: st} }
