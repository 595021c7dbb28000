package workspace

// RecordClean records that the version st of a file at rel is clean
// without its content being read here: the caller knows the content is a
// blob the gate already scanned and found clean (git's filtered object
// store, see tools' mask walk). A path the gate blocks by name, and a zero
// stamp, are not recorded.
func (g *Gate) RecordClean(rel string, st Stamp) {
	if g == nil || st == (Stamp{}) {
		return
	}
	if _, blocked := g.PathBlocked(rel); blocked {
		return
	}
	g.stampMu.Lock()
	if g.stamps == nil || len(g.stamps) >= maxStampVerdicts {
		g.stamps = map[Stamp]string{}
	}
	g.stamps[st] = ""
	g.stampMu.Unlock()
	g.rememberVerdict(st, "")
}
