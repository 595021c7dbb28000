package textsearch

import (
	"fmt"
	"golang.org/x/sys/cpu"
	"strings"
	"testing"
)

// TestScalarScanner runs the scanner without AVX2 (as on a CPU without
// it) against the regexp package, on texts long enough for several
// blocks of candidates and on their short tails.
func TestScalarScanner(t *testing.T) {
	defer func(old bool) { haveSIMD = old }(haveSIMD)
	text := strings.Repeat("id 12345 Abc1234 x99 Zz000\n", 3) + strings.Repeat("0123456789", 12) + "\nTODO xx FIXME 42\nAb123"
	// More blocks of candidates than one SIMD call hands back (hitCap),
	// with matches between them and after.
	long := strings.Repeat(strings.Repeat("0123456789", 70)+" Ab1234 xx\n", 3) + strings.Repeat("9", 40*32) + "\nTODO Qz999"
	long += strings.Repeat(" ", 70*32) + "#\n" + strings.Repeat("@@ ", 600)
	// Windows of three, two and one byte (the one-byte loop of the SIMD
	// scanner).
	for _, expr := range []string{`[A-Z][a-z]+[0-9]{3,}`, `(TODO|FIXME|XXX)`, `[0-9]{4}`, `\bxx\b`, `[#@]`, `Q`} {
		o := newOracle(t, expr, false)
		for _, simd := range []bool{false, true} {
			haveSIMD = simd && cpu.X86.HasAVX2
			how := fmt.Sprintf("SIMD %v", haveSIMD)
			for cut := range len(text) + 1 {
				o.check(t, []byte(text[cut:]), how)
			}
			for cut := 0; cut < len(long); cut += 37 {
				o.check(t, []byte(long[cut:]), how)
			}
		}
	}
}
