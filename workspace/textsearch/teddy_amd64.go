package textsearch

import "golang.org/x/sys/cpu"

// haveSIMD: the AVX2 scanner runs on this CPU.
var haveSIMD = cpu.X86.HasAVX2

// simdSpan is how many bytes one 32-position block reads (32 + the two
// window bytes after the last position).
const simdSpan = 34

// teddyHits checks blocks of 32 positions from p, storing each block
// that holds a candidate in hits as its offset<<32 | its candidates (bit
// i: position offset+i), until max are stored; it returns how many it
// stored and how many bytes of positions it checked. Windows of k = 1
// byte look up only their first byte. The caller
// guarantees blocks*32+2 bytes, fewer than 1<<31.
//
//go:noescape
func teddyHits(p *byte, blocks int, tables *[2 * maxWindow][32]byte, hits *uint64, max, k int) (n, scanned int)
