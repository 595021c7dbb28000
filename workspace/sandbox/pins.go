package sandbox

import "path/filepath"

// A masked file is a mount point: a command cannot remove, rename or link
// it. Its folders are not, and a command could move one (mv keys
// node_modules/keys) with the secret inside: the secret would then be
// unmasked for the next command, whose masks are decided by path (a
// folder the mask walk skips, another file's verdict at its new path), or
// for a command starting meanwhile, whose masks are made by path a few
// milliseconds after they were decided. So every folder between a mask and
// the writable tree that holds it is bound onto itself (pinned), by the
// mask helper or by bwrap: rename(2) refuses to move a mount point, in the
// sandbox and in any namespace a command makes from it, where the pin is
// locked. A command can still write, create and delete everything else in
// those folders. bwrap follows a symlink put in a folder's place between
// the decision and the bind; the commands of a tree take turns (tools'
// lockCommands), so no command of the tree runs meanwhile (masks.go).

// pins returns the folders to pin for the masks among binds: each folder
// above a mask up to the writable bind (the tree, a writable extra or
// cache) that holds it. Inside a read-only bind or a masked folder nothing
// can be moved anyway; a folder with a bind of its own is a mount point
// already.
func pins(binds []bind) []bind {
	at := make(map[string]bindKind, len(binds))
	for _, bd := range binds {
		at[bd.path] = bd.kind
	}
	var out []bind
	for _, bd := range binds {
		if bd.kind != bindMask {
			continue
		}
		var above []string
		d := filepath.Dir(bd.path)
		for {
			kind, ok := at[d]
			if ok || d == "/" {
				if ok && (kind == bindWritable || kind == bindPin) { // a pinned folder is held up to its tree
					for _, p := range above {
						at[p] = bindPin
						out = append(out, bind{path: p, kind: bindPin})
					}
				}
				break
			}
			above = append(above, d)
			d = filepath.Dir(d)
		}
	}
	return out
}
