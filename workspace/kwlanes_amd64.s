#include "textflag.h"

// Registers: SI the byte classes, DI the address of the first row not
// accepting, CX the step counted up from -n to 0, AX scratch; the lanes'
// ends in BX DX R8 R9 R10 and their states (rows' addresses) in R11-R15.

// STEP moves one lane one byte: the byte's class indexes the state's row,
// whose entry is the next state's row. It sets the carry flag on a step
// into an accepting state (a row below DI).
#define STEP(P, S) \
	MOVBLZX (P)(CX*1), AX \
	MOVBLZX (SI)(AX*1), AX \
	MOVQ    (S)(AX*8), S \
	CMPQ    S, DI

// HIT records lane L's step into an accepting state (CX, S) at the
// lane's cursor (the result slot C, a pointer until the end).
#define HIT(C, S) \
	MOVQ C, AX \
	MOVL CX, (AX) \
	MOVQ S, 8(AX) \
	ADDQ $16, AX \
	MOVQ AX, C

// A lane's records are kwChunk×16 bytes apart.
#define LANEREC 16384

// func kwSteps(class *[256]uint8, split uint64, data *byte, st *kwLanes, n int, rec *kwRecs) (c0, c1, c2, c3, c4 int)
TEXT ·kwSteps(SB), NOSPLIT, $0-88
	MOVQ class+0(FP), SI
	MOVQ split+8(FP), DI
	MOVQ data+16(FP), AX
	MOVQ st+24(FP), CX
	MOVQ 0(CX), BX
	ADDQ AX, BX
	MOVQ 8(CX), DX
	ADDQ AX, DX
	MOVQ 16(CX), R8
	ADDQ AX, R8
	MOVQ 24(CX), R9
	ADDQ AX, R9
	MOVQ 32(CX), R10
	ADDQ AX, R10
	MOVQ 40(CX), R11
	MOVQ 48(CX), R12
	MOVQ 56(CX), R13
	MOVQ 64(CX), R14
	MOVQ 72(CX), R15
	MOVQ rec+40(FP), AX
	MOVQ AX, c0+48(FP)
	ADDQ $LANEREC, AX
	MOVQ AX, c1+56(FP)
	ADDQ $LANEREC, AX
	MOVQ AX, c2+64(FP)
	ADDQ $LANEREC, AX
	MOVQ AX, c3+72(FP)
	ADDQ $LANEREC, AX
	MOVQ AX, c4+80(FP)
	MOVQ n+32(FP), CX
	TESTQ CX, CX
	JLE  done
	NEGQ CX

loop:
	STEP(BX, R11)
	JCS  hit0
back0:
	STEP(DX, R12)
	JCS  hit1
back1:
	STEP(R8, R13)
	JCS  hit2
back2:
	STEP(R9, R14)
	JCS  hit3
back3:
	STEP(R10, R15)
	JCS  hit4
back4:
	INCQ CX
	JNZ  loop

done:
	MOVQ st+24(FP), AX
	MOVQ R11, 40(AX)
	MOVQ R12, 48(AX)
	MOVQ R13, 56(AX)
	MOVQ R14, 64(AX)
	MOVQ R15, 72(AX)
	// The cursors become counts.
	MOVQ rec+40(FP), AX
	MOVQ c0+48(FP), BX
	SUBQ AX, BX
	SHRQ $4, BX
	MOVQ BX, c0+48(FP)
	ADDQ $LANEREC, AX
	MOVQ c1+56(FP), BX
	SUBQ AX, BX
	SHRQ $4, BX
	MOVQ BX, c1+56(FP)
	ADDQ $LANEREC, AX
	MOVQ c2+64(FP), BX
	SUBQ AX, BX
	SHRQ $4, BX
	MOVQ BX, c2+64(FP)
	ADDQ $LANEREC, AX
	MOVQ c3+72(FP), BX
	SUBQ AX, BX
	SHRQ $4, BX
	MOVQ BX, c3+72(FP)
	ADDQ $LANEREC, AX
	MOVQ c4+80(FP), BX
	SUBQ AX, BX
	SHRQ $4, BX
	MOVQ BX, c4+80(FP)
	RET

hit0:
	HIT(c0+48(FP), R11)
	JMP back0
hit1:
	HIT(c1+56(FP), R12)
	JMP back1
hit2:
	HIT(c2+64(FP), R13)
	JMP back2
hit3:
	HIT(c3+72(FP), R14)
	JMP back3
hit4:
	HIT(c4+80(FP), R15)
	JMP back4
