#include "textflag.h"

// func hamSlots8(round *uint64, q *[8]uint64, dist *uint16, hist *int, n int)
//
// For each of n slots of 8 words at round: d = the popcount of the slot
// xor q; dist[slot] = d; hist[d]++. The caller checks the bounds.
TEXT ·hamSlots8(SB), NOSPLIT, $0-40
	MOVQ round+0(FP), SI
	MOVQ q+8(FP), DI
	MOVQ dist+16(FP), DX
	MOVQ n+32(FP), CX
	TESTQ CX, CX
	JLE done8
	MOVQ 0(DI), R8
	MOVQ 8(DI), R9
	MOVQ 16(DI), R10
	MOVQ 24(DI), R11
	MOVQ 32(DI), R12
	MOVQ 40(DI), R13

loop8:
	MOVQ 0(SI), AX
	XORQ R8, AX
	POPCNTQ AX, AX
	MOVQ 8(SI), BX
	XORQ R9, BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 16(SI), BX
	XORQ R10, BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 24(SI), BX
	XORQ R11, BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 32(SI), BX
	XORQ R12, BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 40(SI), BX
	XORQ R13, BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 48(SI), BX
	XORQ 48(DI), BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 56(SI), BX
	XORQ 56(DI), BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVW AX, 0(DX)
	MOVQ hist+24(FP), BX
	INCQ 0(BX)(AX*8)
	ADDQ $64, SI
	ADDQ $2, DX
	DECQ CX
	JNZ loop8

done8:
	RET

// func hamList16(rest *uint64, q *[16]uint64, list *int32, dist *uint16, hist *int, n int)
//
// For each of the n slots k at list: d = dist[k] + the popcount of the 16
// words at rest[16k:] xor q; dist[k] = d; hist[d]++. The caller checks the
// bounds.
TEXT ·hamList16(SB), NOSPLIT, $0-48
	MOVQ rest+0(FP), SI
	MOVQ q+8(FP), DI
	MOVQ list+16(FP), R8
	MOVQ dist+24(FP), DX
	MOVQ n+40(FP), CX
	TESTQ CX, CX
	JLE done16

loop16:
	// The slot eight places on is fetched ahead: the reads of the list are
	// scattered, and a slot's words reach the cache while those before it
	// are counted.
	CMPQ CX, $8
	JLE now16
	MOVLQSX 32(R8), R11
	PREFETCHT0 0(DX)(R11*2)
	SHLQ $7, R11
	ADDQ SI, R11
	PREFETCHT0 0(R11)
	PREFETCHT0 64(R11)

now16:
	MOVLQSX 0(R8), R9 // k
	MOVQ R9, R10
	SHLQ $7, R10      // 128 bytes a slot
	ADDQ SI, R10
	MOVWQZX 0(DX)(R9*2), AX
	MOVQ 0(R10), BX
	XORQ 0(DI), BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 8(R10), BX
	XORQ 8(DI), BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 16(R10), BX
	XORQ 16(DI), BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 24(R10), BX
	XORQ 24(DI), BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 32(R10), BX
	XORQ 32(DI), BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 40(R10), BX
	XORQ 40(DI), BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 48(R10), BX
	XORQ 48(DI), BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 56(R10), BX
	XORQ 56(DI), BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 64(R10), BX
	XORQ 64(DI), BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 72(R10), BX
	XORQ 72(DI), BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 80(R10), BX
	XORQ 80(DI), BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 88(R10), BX
	XORQ 88(DI), BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 96(R10), BX
	XORQ 96(DI), BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 104(R10), BX
	XORQ 104(DI), BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 112(R10), BX
	XORQ 112(DI), BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVQ 120(R10), BX
	XORQ 120(DI), BX
	POPCNTQ BX, BX
	ADDQ BX, AX
	MOVW AX, 0(DX)(R9*2)
	MOVQ hist+32(FP), BX
	INCQ 0(BX)(AX*8)
	ADDQ $4, R8
	DECQ CX
	JNZ loop16

done16:
	RET

// func prefetch(p *int8, n int)
//
// Asks for the n bytes at p (at least one line) to be brought into the
// cache; never faults.
TEXT ·prefetch(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX

fetch:
	PREFETCHT0 0(SI)
	ADDQ $64, SI
	SUBQ $64, CX
	JG fetch
	RET
