package workspace

import (
	"io/fs"
	"syscall"
)

// StatFileInfo is the fs.FileInfo of a file named name whose stat data
// is st (Sys is its *syscall.Stat_t, as StampOf reads it).
func StatFileInfo(name string, st syscall.Stat_t) fs.FileInfo { return statInfo{name: name, st: st} }

// KnownContentVerdict is KnownVerdict for a file version whose path the
// caller has just found not sensitive (PathBlocked): the content's verdict
// when it was decided before, without checking the path again.
func (g *Gate) KnownContentVerdict(st Stamp) (reason string, blocked, known bool) {
	return g.knownContent(st)
}
