//go:build !amd64

package textsearch

const (
	haveSIMD = false
	simdSpan = 34
)

func teddySIMD(p *byte, blocks int, tables *[2 * maxWindow][32]byte) (off int, mask uint32) {
	return -1, 0
}
