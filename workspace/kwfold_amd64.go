package workspace

import "golang.org/x/sys/cpu"

// indexFoldLead is the index of the first byte of b that starts a K or
// an ſ (kelvinLead, longSLead), or -1: one pass of AVX2 compares where the
// CPU has them (bytes.Contains looked for each character in a pass of its
// own, a tenth of the secret scan of a file).
func indexFoldLead(b []byte) int {
	if !cpu.X86.HasAVX2 || len(b) < 32 {
		return indexFoldLeadGo(b)
	}
	blocks := len(b) / 32
	if i := indexFoldLeadAVX2(&b[0], blocks); i >= 0 {
		return i
	}
	if i := indexFoldLeadGo(b[blocks*32:]); i >= 0 {
		return blocks*32 + i
	}
	return -1
}

// indexFoldLeadAVX2 looks at blocks of 32 bytes from p for kelvinLead or
// longSLead; it returns the offset of the first or -1.
//
//go:noescape
func indexFoldLeadAVX2(p *byte, blocks int) int
