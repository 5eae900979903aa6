//go:build amd64

#include "textflag.h"

// func kernelAVX512(k int, a, b, c *float64, ldc int, alpha, beta float64, rows, masks int)
//
// The 8 x 24 micro-kernel (see kernel.go) with AVX-512 FMA. Only the first
// rows rows of C are written, and in them the columns selected by masks:
// its bytes 0, 1 and 2 are the lane masks of columns 0-7, 8-15 and 16-23
// (loaded into K1, K2, K3), so that edge tiles go straight to C. Register
// layout:
//
//	Z0  Z1  Z2     one row of the packed B panel: b[p*24 : p*24+24]
//	Z3  Z4         a[p*8+i] broadcast to all lanes (two, alternating)
//	Z8  Z9  Z10    accumulators of tile row 0 (columns 0-7, 8-15, 16-23)
//	Z11 Z12 Z13    row 1
//	...
//	Z29 Z30 Z31    row 7
//
// Each step of the inner dimension is 3 loads, 8 broadcasts and 24
// independent FMAs, enough to keep both FMA pipes busy through their
// latency. The loop is unrolled twice.

// ROW accumulates row i of the tile: broadcast a[p*8+i] (at off(SI)) and
// multiply it into the B row held in Z0-Z2.
#define ROW(off, bc, c0, c1, c2) \
	VBROADCASTSD off(SI), bc; \
	VFMADD231PD  Z0, bc, c0;  \
	VFMADD231PD  Z1, bc, c1;  \
	VFMADD231PD  Z2, bc, c2

// STEP is one step p of the inner dimension; aoff and boff are the byte
// offsets of a[p*8] and b[p*24] from SI and DI.
#define STEP(aoff, boff) \
	VMOVUPD boff(DI), Z0;                    \
	VMOVUPD boff+64(DI), Z1;                 \
	VMOVUPD boff+128(DI), Z2;                \
	ROW(aoff, Z3, Z8, Z9, Z10);              \
	ROW(aoff+8, Z4, Z11, Z12, Z13);          \
	ROW(aoff+16, Z3, Z14, Z15, Z16);         \
	ROW(aoff+24, Z4, Z17, Z18, Z19);         \
	ROW(aoff+32, Z3, Z20, Z21, Z22);         \
	ROW(aoff+40, Z4, Z23, Z24, Z25);         \
	ROW(aoff+48, Z3, Z26, Z27, Z28);         \
	ROW(aoff+56, Z4, Z29, Z30, Z31)

// ZERO3 clears three accumulators.
#define ZERO3(c0, c1, c2) \
	VPXORQ c0, c0, c0; \
	VPXORQ c1, c1, c1; \
	VPXORQ c2, c2, c2

// SCALE3 multiplies three accumulators by alpha (in Z0).
#define SCALE3(c0, c1, c2) \
	VMULPD Z0, c0, c0; \
	VMULPD Z0, c1, c1; \
	VMULPD Z0, c2, c2

// UPDATE3 stores beta*C + acc into the masked columns of the C row at DX
// (beta in Z1), advances DX by one row and leaves if it was the last row.
// Masked-out elements of C are neither read nor written.
#define UPDATE3(c0, c1, c2) \
	VFMADD231PD (DX), Z1, K1, c0;    \
	VFMADD231PD 64(DX), Z1, K2, c1;  \
	VFMADD231PD 128(DX), Z1, K3, c2; \
	VMOVUPD     c0, K1, (DX);        \
	VMOVUPD     c1, K2, 64(DX);      \
	VMOVUPD     c2, K3, 128(DX);     \
	ADDQ        R8, DX;              \
	DECQ        R11;                 \
	JZ          done

// STORE3 stores acc into the masked columns of the C row at DX, advances
// DX by one row and leaves if it was the last row.
#define STORE3(c0, c1, c2) \
	VMOVUPD c0, K1, (DX);    \
	VMOVUPD c1, K2, 64(DX);  \
	VMOVUPD c2, K3, 128(DX); \
	ADDQ    R8, DX;          \
	DECQ    R11;             \
	JZ      done

TEXT ·kernelAVX512(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $3, R8

	ZERO3(Z8, Z9, Z10)
	ZERO3(Z11, Z12, Z13)
	ZERO3(Z14, Z15, Z16)
	ZERO3(Z17, Z18, Z19)
	ZERO3(Z20, Z21, Z22)
	ZERO3(Z23, Z24, Z25)
	ZERO3(Z26, Z27, Z28)
	ZERO3(Z29, Z30, Z31)

	// Prefetch the tile of C, which is read at the end.
	MOVQ DX, R9
	MOVQ $8, R10

prefetch:
	PREFETCHT0 (R9)
	PREFETCHT0 64(R9)
	PREFETCHT0 128(R9)
	PREFETCHT0 184(R9)
	ADDQ       R8, R9
	DECQ       R10
	JNZ        prefetch

	MOVQ CX, R10
	SHRQ $1, R10
	JZ   tail

loop2:
	STEP(0, 0)
	STEP(64, 192)
	ADDQ $128, SI
	ADDQ $384, DI
	DECQ R10
	JNZ  loop2

tail:
	ANDQ $1, CX
	JZ   store
	STEP(0, 0)

store:
	VBROADCASTSD alpha+40(FP), Z0
	SCALE3(Z8, Z9, Z10)
	SCALE3(Z11, Z12, Z13)
	SCALE3(Z14, Z15, Z16)
	SCALE3(Z17, Z18, Z19)
	SCALE3(Z20, Z21, Z22)
	SCALE3(Z23, Z24, Z25)
	SCALE3(Z26, Z27, Z28)
	SCALE3(Z29, Z30, Z31)

	MOVQ  masks+64(FP), AX
	KMOVW AX, K1
	SHRQ  $8, AX
	KMOVW AX, K2
	SHRQ  $8, AX
	KMOVW AX, K3
	MOVQ  rows+56(FP), R11

	MOVQ beta+48(FP), AX
	SHLQ $1, AX          // beta == +0 or -0: C is not read
	JZ   overwrite
	VBROADCASTSD beta+48(FP), Z1
	UPDATE3(Z8, Z9, Z10)
	UPDATE3(Z11, Z12, Z13)
	UPDATE3(Z14, Z15, Z16)
	UPDATE3(Z17, Z18, Z19)
	UPDATE3(Z20, Z21, Z22)
	UPDATE3(Z23, Z24, Z25)
	UPDATE3(Z26, Z27, Z28)
	UPDATE3(Z29, Z30, Z31)

overwrite:
	STORE3(Z8, Z9, Z10)
	STORE3(Z11, Z12, Z13)
	STORE3(Z14, Z15, Z16)
	STORE3(Z17, Z18, Z19)
	STORE3(Z20, Z21, Z22)
	STORE3(Z23, Z24, Z25)
	STORE3(Z26, Z27, Z28)
	STORE3(Z29, Z30, Z31)

done:
	VZEROUPPER
	RET
