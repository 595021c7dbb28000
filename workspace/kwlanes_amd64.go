package workspace

//go:generate go run kwlanes_gen.go

// kwStepsFast is kwSteps: the lanes in assembly.
func kwStepsFast(a *keywordAutomaton, data []byte, st *kwLanes, n int, rec *kwRecs) [lanes]int {
	if n <= 0 {
		return [lanes]int{}
	}
	var c [lanes]int
	c[0], c[1], c[2], c[3], c[4] = kwSteps(a.classAt, &data[0], st.off[1]-st.off[0], st, n, rec)
	return c
}

// kwSteps is kwStepsGo on amd64 (kwlanes_amd64.s), its five lanes'
// states, positions and next bytes in registers. The caller guarantees
// st's lanes within data, equally far apart (stride), n ≤ kwChunk and a
// multiple of four.
//
//go:noescape
func kwSteps(classAt *[256]uint64, data *byte, stride int, st *kwLanes, n int, rec *kwRecs) (c0, c1, c2, c3, c4 int)
