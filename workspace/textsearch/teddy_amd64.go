package textsearch

import "golang.org/x/sys/cpu"

// haveSIMD: the AVX2 scanner runs on this CPU.
var haveSIMD = cpu.X86.HasAVX2

// simdSpan is how many bytes one 32-position block reads (32 + the two
// window bytes after the last position).
const simdSpan = 34

// teddySIMD checks blocks of 32 positions from p; it returns the offset
// of the first block holding a candidate and the block's candidates (bit
// i: position off+i), or -1. The caller guarantees blocks*32+2 bytes.
//
//go:noescape
func teddySIMD(p *byte, blocks int, tables *[2 * maxWindow][32]byte) (off int, mask uint32)
