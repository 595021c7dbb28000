#include "textflag.h"

// Registers: DI the table's split (the byte classes at DI, accepting rows
// below it), BX lane 0's position (lanes 1 and 2 at BX+D, BX+2D), R8 lane
// 3's (BX+3D; lane 4 at R8+D), R9 the lanes' stride D, AX scratch; the
// lanes' states (rows' addresses) in R11-R15, and the next four bytes of
// lanes 0-3 in DX SI R10 CX (lane 4 loads its bytes one by one: there is
// no register left).

// STEP moves one lane one byte (in AX): the byte's class indexes the
// state's row, whose entry is the next state's row. It sets the carry
// flag on a step into an accepting state (a row below DI).
#define STEP(S) \
	MOVBLZX (DI)(AX*1), AX \
	MOVQ    (S)(AX*8), S \
	CMPQ    S, DI

// HIT records a lane's step into an accepting state: lane 0's position
// plus K, and the state, at the lane's cursor (result slot C).
#define HIT(C, S, K) \
	MOVQ C, AX \
	MOVQ BX, (AX) \
	ADDQ $K, (AX) \
	MOVQ S, 8(AX) \
	ADDQ $16, AX \
	MOVQ AX, C

// A lane's records are kwChunk×16 bytes apart.
#define LANEREC 16384

// func kwSteps(split uint64, data *byte, stride int, st *kwLanes, n int, rec *kwRecs) (c0, c1, c2, c3, c4 int)
TEXT ·kwSteps(SB), NOSPLIT, $8-88
	MOVQ split+0(FP), DI
	MOVQ stride+16(FP), R9
	MOVQ st+24(FP), AX
	MOVQ data+8(FP), BX
	ADDQ 0(AX), BX
	MOVQ 40(AX), R11
	MOVQ 48(AX), R12
	MOVQ 56(AX), R13
	MOVQ 64(AX), R14
	MOVQ 72(AX), R15
	MOVQ n+32(FP), CX
	SUBQ CX, BX
	LEAQ (BX)(R9*2), R8
	ADDQ R9, R8
	ADDQ BX, CX
	MOVQ CX, end-8(SP)
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
	CMPQ BX, end-8(SP)
	JAE  done

loop:
	MOVL (BX), DX
	MOVL (BX)(R9*1), SI
	MOVL (BX)(R9*2), R10
	MOVL (R8), CX
	MOVBLZX DX, AX
	STEP(R11)
	JCS  hit00
back00:
	MOVBLZX SI, AX
	STEP(R12)
	JCS  hit10
back10:
	MOVBLZX R10, AX
	STEP(R13)
	JCS  hit20
back20:
	MOVBLZX CX, AX
	STEP(R14)
	JCS  hit30
back30:
	MOVBLZX 0(R8)(R9*1), AX
	STEP(R15)
	JCS  hit40
back40:
	SHRL $8, DX
	SHRL $8, SI
	SHRL $8, R10
	SHRL $8, CX
	MOVBLZX DX, AX
	STEP(R11)
	JCS  hit01
back01:
	MOVBLZX SI, AX
	STEP(R12)
	JCS  hit11
back11:
	MOVBLZX R10, AX
	STEP(R13)
	JCS  hit21
back21:
	MOVBLZX CX, AX
	STEP(R14)
	JCS  hit31
back31:
	MOVBLZX 1(R8)(R9*1), AX
	STEP(R15)
	JCS  hit41
back41:
	SHRL $8, DX
	SHRL $8, SI
	SHRL $8, R10
	SHRL $8, CX
	MOVBLZX DX, AX
	STEP(R11)
	JCS  hit02
back02:
	MOVBLZX SI, AX
	STEP(R12)
	JCS  hit12
back12:
	MOVBLZX R10, AX
	STEP(R13)
	JCS  hit22
back22:
	MOVBLZX CX, AX
	STEP(R14)
	JCS  hit32
back32:
	MOVBLZX 2(R8)(R9*1), AX
	STEP(R15)
	JCS  hit42
back42:
	SHRL $8, DX
	SHRL $8, SI
	SHRL $8, R10
	SHRL $8, CX
	MOVBLZX DX, AX
	STEP(R11)
	JCS  hit03
back03:
	MOVBLZX SI, AX
	STEP(R12)
	JCS  hit13
back13:
	MOVBLZX R10, AX
	STEP(R13)
	JCS  hit23
back23:
	MOVBLZX CX, AX
	STEP(R14)
	JCS  hit33
back33:
	MOVBLZX 3(R8)(R9*1), AX
	STEP(R15)
	JCS  hit43
back43:
	ADDQ $4, BX
	ADDQ $4, R8
	CMPQ BX, end-8(SP)
	JB   loop

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

hit00:
	HIT(c0+48(FP), R11, 0)
	JMP  back00
hit01:
	HIT(c0+48(FP), R11, 1)
	JMP  back01
hit02:
	HIT(c0+48(FP), R11, 2)
	JMP  back02
hit03:
	HIT(c0+48(FP), R11, 3)
	JMP  back03
hit10:
	HIT(c1+56(FP), R12, 0)
	JMP  back10
hit11:
	HIT(c1+56(FP), R12, 1)
	JMP  back11
hit12:
	HIT(c1+56(FP), R12, 2)
	JMP  back12
hit13:
	HIT(c1+56(FP), R12, 3)
	JMP  back13
hit20:
	HIT(c2+64(FP), R13, 0)
	JMP  back20
hit21:
	HIT(c2+64(FP), R13, 1)
	JMP  back21
hit22:
	HIT(c2+64(FP), R13, 2)
	JMP  back22
hit23:
	HIT(c2+64(FP), R13, 3)
	JMP  back23
hit30:
	HIT(c3+72(FP), R14, 0)
	JMP  back30
hit31:
	HIT(c3+72(FP), R14, 1)
	JMP  back31
hit32:
	HIT(c3+72(FP), R14, 2)
	JMP  back32
hit33:
	HIT(c3+72(FP), R14, 3)
	JMP  back33
hit40:
	HIT(c4+80(FP), R15, 0)
	JMP  back40
hit41:
	HIT(c4+80(FP), R15, 1)
	JMP  back41
hit42:
	HIT(c4+80(FP), R15, 2)
	JMP  back42
hit43:
	HIT(c4+80(FP), R15, 3)
	JMP  back43
