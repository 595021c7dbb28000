package workspace

// kwStepsFast is kwSteps: the lanes in assembly.
func kwStepsFast(a *keywordAutomaton, data []byte, st *kwLanes, n int, rec *kwRecs) [lanes]int {
	if n <= 0 {
		return [lanes]int{}
	}
	c0, c1, c2, c3, c4 := kwSteps(&a.tab[a.tabBase], &a.class, &data[0], st, n, rec)
	return [lanes]int{c0, c1, c2, c3, c4}
}

// kwSteps is kwStepsGo on amd64 (kwlanes_amd64.s), its five lanes'
// states and positions in registers. The caller guarantees st's lanes
// within data, n ≤ kwChunk, and the table's shape (kwTab).
//
//go:noescape
func kwSteps(tab *int32, class *[256]uint8, data *byte, st *kwLanes, n int, rec *kwRecs) (c0, c1, c2, c3, c4 int)
