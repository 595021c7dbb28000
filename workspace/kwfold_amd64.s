#include "textflag.h"

// func indexFoldLeadAVX2(p *byte, blocks int) int
TEXT ·indexFoldLeadAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	SHLQ $5, CX
	XORQ BX, BX
	MOVQ $0xE2, AX
	MOVQ AX, X1
	VPBROADCASTB X1, Y1
	MOVQ $0xC5, AX
	MOVQ AX, X3
	VPBROADCASTB X3, Y3

loop:
	CMPQ BX, CX
	JGE  notfound
	VMOVDQU (SI)(BX*1), Y0
	VPCMPEQB Y0, Y1, Y2
	VPCMPEQB Y0, Y3, Y4
	VPOR Y2, Y4, Y2
	VPMOVMSKB Y2, AX
	TESTL AX, AX
	JNZ  found
	ADDQ $32, BX
	JMP  loop

found:
	BSFL AX, AX
	ADDQ BX, AX
	VZEROUPPER
	MOVQ AX, ret+16(FP)
	RET

notfound:
	VZEROUPPER
	MOVQ $-1, ret+16(FP)
	RET
