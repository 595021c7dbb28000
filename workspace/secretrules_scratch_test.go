package workspace

import (
	"strings"
	"testing"
)

// TestScanReusesHitBuffers checks that a scan of content full of keywords
// reuses its hit buffers: a search's gate scans thousands of files, and
// growing fresh buffers for each was a tenth of a cold search's time.
func TestScanReusesHitBuffers(t *testing.T) {
	if raceOn {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	data := []byte(strings.Repeat("\tif token == nil { return errKey } // the key and the token\n", 2000))
	scanFirst(data) // the rules' first use compiles them
	allocs := testing.AllocsPerRun(20, func() {
		if name := scanFirst(data); name != "" {
			t.Fatalf("found %s in clean content", name)
		}
	})
	if allocs > 10 {
		t.Fatalf("a scan of %d bytes allocated %.0f times; want the hit buffers reused (≤ 10)", len(data), allocs)
	}
}
