//go:build amd64

#include "textflag.h"

// func dotRowsAVX512(n int, a *float64, lda int, x *float64, acc *[32]float64)
//
// Partial dot products of four rows of a with x over the first n columns,
// n a multiple of 16: row r's sum is the sum of acc[8r : 8r+8]. Each row
// has two accumulators (even and odd 8-column halves) so that eight FMA
// chains are in flight: Z0/Z4 row 0, Z1/Z5 row 1, Z2/Z6 row 2, Z3/Z7
// row 3; Z8, Z9 hold x.
TEXT ·dotRowsAVX512(SB), NOSPLIT, $0-40
	MOVQ   n+0(FP), CX
	MOVQ   a+8(FP), SI
	MOVQ   lda+16(FP), R8
	SHLQ   $3, R8
	MOVQ   x+24(FP), DI
	MOVQ   acc+32(FP), DX
	LEAQ   (SI)(R8*1), R9  // row 1
	LEAQ   (R9)(R8*1), R10 // row 2
	LEAQ   (R10)(R8*1), R11 // row 3
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	XORQ   AX, AX
	SHRQ   $4, CX
	JZ     sum

loop:
	VMOVUPD     (DI)(AX*8), Z8
	VMOVUPD     64(DI)(AX*8), Z9
	VFMADD231PD (SI)(AX*8), Z8, Z0
	VFMADD231PD (R9)(AX*8), Z8, Z1
	VFMADD231PD (R10)(AX*8), Z8, Z2
	VFMADD231PD (R11)(AX*8), Z8, Z3
	VFMADD231PD 64(SI)(AX*8), Z9, Z4
	VFMADD231PD 64(R9)(AX*8), Z9, Z5
	VFMADD231PD 64(R10)(AX*8), Z9, Z6
	VFMADD231PD 64(R11)(AX*8), Z9, Z7
	ADDQ        $16, AX
	DECQ        CX
	JNZ         loop

sum:
	VADDPD  Z4, Z0, Z0
	VADDPD  Z5, Z1, Z1
	VADDPD  Z6, Z2, Z2
	VADDPD  Z7, Z3, Z3
	VMOVUPD Z0, (DX)
	VMOVUPD Z1, 64(DX)
	VMOVUPD Z2, 128(DX)
	VMOVUPD Z3, 192(DX)
	VZEROUPPER
	RET

// func dotAVX512(n int, x, y *float64) float64
//
// The dot product of x[:n] and y[:n], n a multiple of 8: four accumulators
// Z0-Z3 over 32 elements at a time, then Z0 over 8 at a time, then a
// reduction of the lanes.
TEXT ·dotAVX512(SB), NOSPLIT, $0-32
	MOVQ   n+0(FP), CX
	MOVQ   x+8(FP), SI
	MOVQ   y+16(FP), DI
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3

loop32:
	CMPQ        CX, $32
	JL          loop8
	VMOVUPD     (SI), Z4
	VMOVUPD     64(SI), Z5
	VMOVUPD     128(SI), Z6
	VMOVUPD     192(SI), Z7
	VFMADD231PD (DI), Z4, Z0
	VFMADD231PD 64(DI), Z5, Z1
	VFMADD231PD 128(DI), Z6, Z2
	VFMADD231PD 192(DI), Z7, Z3
	ADDQ        $256, SI
	ADDQ        $256, DI
	SUBQ        $32, CX
	JMP         loop32

loop8:
	CMPQ        CX, $8
	JL          reduce
	VMOVUPD     (SI), Z4
	VFMADD231PD (DI), Z4, Z0
	ADDQ        $64, SI
	ADDQ        $64, DI
	SUBQ        $8, CX
	JMP         loop8

reduce:
	VADDPD        Z1, Z0, Z0
	VADDPD        Z3, Z2, Z2
	VADDPD        Z2, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPD        Y1, Y0, Y0
	VEXTRACTF128  $1, Y0, X1
	VADDPD        X1, X0, X0
	VPERMILPD     $1, X0, X1
	VADDSD        X1, X0, X0
	VZEROUPPER
	MOVSD         X0, ret+24(FP)
	RET
