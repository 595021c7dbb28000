//go:build !amd64

package workspace

// indexFoldLead is the index of the first byte of b that starts a K or
// an ſ (kelvinLead, longSLead), or -1.
func indexFoldLead(b []byte) int { return indexFoldLeadGo(b) }
