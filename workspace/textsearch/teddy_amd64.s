#include "textflag.h"

// POS0 looks up the 32 bytes at SI+BX in position 0's nibble tables
// (Y0, Y1), leaving each byte's buckets in Y8.
#define POS0 \
	VMOVDQU (SI)(BX*1), Y6; \
	VPSRLW $4, Y6, Y7; \
	VPAND Y15, Y6, Y6; \
	VPAND Y15, Y7, Y7; \
	VPSHUFB Y6, Y0, Y6; \
	VPSHUFB Y7, Y1, Y7; \
	VPAND Y6, Y7, Y8

// STOREHIT stores hits[n] = BX<<32 | AX (the block's offset and
// candidates), moves on to the next block and compares n with max.
#define STOREHIT \
	MOVQ BX, R10; \
	SHLQ $32, R10; \
	ORQ AX, R10; \
	MOVQ R10, (DI)(R8*8); \
	INCQ R8; \
	ADDQ $32, BX; \
	CMPQ R8, R9

// func teddyHits(p *byte, blocks int, tables *[6][32]byte, hits *uint64, max, k int) (n, scanned int)
TEXT ·teddyHits(SB), NOSPLIT, $0-64
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ tables+16(FP), DX
	MOVQ hits+24(FP), DI
	MOVQ max+32(FP), R9
	VMOVDQU 0(DX), Y0
	VMOVDQU 32(DX), Y1
	VMOVDQU 64(DX), Y2
	VMOVDQU 96(DX), Y3
	VMOVDQU 128(DX), Y4
	VMOVDQU 160(DX), Y5
	MOVQ $0x0f0f0f0f0f0f0f0f, AX
	MOVQ AX, X13
	VPBROADCASTQ X13, Y15
	VPXOR Y14, Y14, Y14
	XORQ BX, BX
	XORQ R8, R8
	SHLQ $5, CX
	CMPQ k+40(FP), $1
	JEQ loop1

loop:
	CMPQ BX, CX
	JGE done
	// position byte 0
	POS0
	// position byte 1
	VMOVDQU 1(SI)(BX*1), Y6
	VPSRLW $4, Y6, Y7
	VPAND Y15, Y6, Y6
	VPAND Y15, Y7, Y7
	VPSHUFB Y6, Y2, Y6
	VPSHUFB Y7, Y3, Y7
	VPAND Y6, Y7, Y6
	VPAND Y6, Y8, Y8
	// position byte 2
	VMOVDQU 2(SI)(BX*1), Y6
	VPSRLW $4, Y6, Y7
	VPAND Y15, Y6, Y6
	VPAND Y15, Y7, Y7
	VPSHUFB Y6, Y4, Y6
	VPSHUFB Y7, Y5, Y7
	VPAND Y6, Y7, Y6
	VPAND Y6, Y8, Y8
	VPCMPEQB Y14, Y8, Y8
	VPMOVMSKB Y8, AX
	XORL $0xffffffff, AX
	JNZ found
	ADDQ $32, BX
	JMP loop

found:
	// hits[n] = offset<<32 | mask
	STOREHIT
	JLT loop

done:
	VZEROUPPER
	MOVQ R8, n+48(FP)
	MOVQ BX, scanned+56(FP)
	RET

	// One-byte windows (a byte set): only position byte 0.
loop1:
	CMPQ BX, CX
	JGE done
	POS0
	VPCMPEQB Y14, Y8, Y8
	VPMOVMSKB Y8, AX
	XORL $0xffffffff, AX
	JNZ found1
	ADDQ $32, BX
	JMP loop1

found1:
	STOREHIT
	JLT loop1
	JMP done
