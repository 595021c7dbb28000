package workspace

import "bytes"

// The first bytes of the two characters that fold to ASCII under (?i):
// K is E2 84 AA, ſ is C5 BF (foldsToASCII).
const (
	kelvinLead = 0xE2
	longSLead  = 0xC5
)

// indexFoldLeadGo is indexFoldLead without the assembly: two searches,
// the second only up to the first's find.
func indexFoldLeadGo(b []byte) int {
	i := bytes.IndexByte(b, longSLead)
	if i < 0 {
		i = len(b)
	}
	if j := bytes.IndexByte(b[:i], kelvinLead); j >= 0 {
		return j
	}
	if i == len(b) {
		return -1
	}
	return i
}
