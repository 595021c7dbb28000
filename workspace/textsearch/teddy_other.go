//go:build !amd64

package textsearch

const (
	haveSIMD = false
	simdSpan = 34
)

func teddyHits(p *byte, blocks int, tables *[2 * maxWindow][32]byte, hits *uint64, max, k int) (n, scanned int) {
	return 0, 0
}
