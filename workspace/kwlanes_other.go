//go:build !amd64

package workspace

// kwStepsFast is the portable stepper where there is no assembly.
func kwStepsFast(a *keywordAutomaton, data []byte, st *kwLanes, n int, rec *kwRecs) [lanes]int {
	return kwStepsGo(a, data, st, n, rec)
}
