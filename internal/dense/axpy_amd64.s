//go:build amd64

#include "textflag.h"

// func axpyRowsAVX512(n, q int, x, a *float64, lda int, y *float64)
//
// y[j] += sum_{r<q} x[r] * a[r*lda+j] for j < n, n a multiple of 8: the
// rows of a are combined into y with the weights x. y is processed 32
// columns at a time held in Z0-Z3 while the rows stream past, then 8 at a
// time in Z0; Z4 holds the broadcast weight.
TEXT ·axpyRowsAVX512(SB), NOSPLIT, $0-48
	MOVQ  n+0(FP), CX
	MOVQ  q+8(FP), BX
	MOVQ  x+16(FP), SI
	MOVQ  a+24(FP), DI
	MOVQ  lda+32(FP), R8
	SHLQ  $3, R8
	MOVQ  y+40(FP), DX
	TESTQ BX, BX
	JZ    done

chunk32:
	CMPQ    CX, $32
	JL      chunk8
	VMOVUPD (DX), Z0
	VMOVUPD 64(DX), Z1
	VMOVUPD 128(DX), Z2
	VMOVUPD 192(DX), Z3
	MOVQ    DI, R9
	MOVQ    SI, R10
	MOVQ    BX, R11

rows32:
	VBROADCASTSD (R10), Z4
	VFMADD231PD  (R9), Z4, Z0
	VFMADD231PD  64(R9), Z4, Z1
	VFMADD231PD  128(R9), Z4, Z2
	VFMADD231PD  192(R9), Z4, Z3
	ADDQ         $8, R10
	ADDQ         R8, R9
	DECQ         R11
	JNZ          rows32
	VMOVUPD      Z0, (DX)
	VMOVUPD      Z1, 64(DX)
	VMOVUPD      Z2, 128(DX)
	VMOVUPD      Z3, 192(DX)
	ADDQ         $256, DX
	ADDQ         $256, DI
	SUBQ         $32, CX
	JMP          chunk32

chunk8:
	CMPQ    CX, $8
	JL      done
	VMOVUPD (DX), Z0
	MOVQ    DI, R9
	MOVQ    SI, R10
	MOVQ    BX, R11

rows8:
	VBROADCASTSD (R10), Z4
	VFMADD231PD  (R9), Z4, Z0
	ADDQ         $8, R10
	ADDQ         R8, R9
	DECQ         R11
	JNZ          rows8
	VMOVUPD      Z0, (DX)
	ADDQ         $64, DX
	ADDQ         $64, DI
	SUBQ         $8, CX
	JMP          chunk8

done:
	VZEROUPPER
	RET
