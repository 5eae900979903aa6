//go:build amd64

#include "textflag.h"

// func kernel4x12AVX2(k int, a, b, c *float64, ldc, rows, hasBeta int, p *avx2Params)
//
// A quarter of the 8 x 24 micro-kernel (see kernel.go) for CPUs with AVX2
// and FMA but not AVX-512: rows 4h..4h+3 and columns 12g..12g+11 of the
// tile, a and b pointing at the first of them in the packed panels (whose
// steps stay 8 and 24 values). Register layout:
//
//	Y12 Y13 Y14    12 values of the packed B row
//	Y15            a[p*8+i] broadcast
//	Y0  Y1  Y2     accumulators of row 0 (columns 0-3, 4-7, 8-11)
//	Y3  Y4  Y5     row 1
//	Y6  Y7  Y8     row 2
//	Y9  Y10 Y11    row 3
//
// Only the first rows rows and the columns whose lanes are set in p.mask
// are read and written (VMASKMOVPD); C is read only if hasBeta.

// ROW4 accumulates row i (a value at off(SI)) into c0-c2.
#define ROW4(off, c0, c1, c2) \
	VBROADCASTSD off(SI), Y15; \
	VFMADD231PD  Y12, Y15, c0; \
	VFMADD231PD  Y13, Y15, c1; \
	VFMADD231PD  Y14, Y15, c2

// SCALE3 multiplies three accumulators by alpha (in Y15).
#define SCALE3(c0, c1, c2) \
	VMULPD Y15, c0, c0; \
	VMULPD Y15, c1, c1; \
	VMULPD Y15, c2, c2

// UPD1 adds beta times the masked C vector at off(DX) to c and stores it.
#define UPD1(off, mask, c) \
	VMASKMOVPD off(DX), mask, Y15; \
	VMULPD     32(R10), Y15, Y15;  \
	VADDPD     Y15, c, c;          \
	VMASKMOVPD c, mask, off(DX)

// UPDATE3 updates one row of C and leaves after the last row.
#define UPDATE3(c0, c1, c2) \
	UPD1(0, Y12, c0);  \
	UPD1(32, Y13, c1); \
	UPD1(64, Y14, c2); \
	ADDQ R8, DX;       \
	DECQ R11;          \
	JZ   done

// STORE3 stores one row of C and leaves after the last row.
#define STORE3(c0, c1, c2) \
	VMASKMOVPD c0, Y12, (DX);   \
	VMASKMOVPD c1, Y13, 32(DX); \
	VMASKMOVPD c2, Y14, 64(DX); \
	ADDQ       R8, DX;          \
	DECQ       R11;             \
	JZ         done

TEXT ·kernel4x12AVX2(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $3, R8
	MOVQ rows+40(FP), R11
	MOVQ hasBeta+48(FP), R9
	MOVQ p+56(FP), R10

	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11

loop:
	VMOVUPD (DI), Y12
	VMOVUPD 32(DI), Y13
	VMOVUPD 64(DI), Y14
	ROW4(0, Y0, Y1, Y2)
	ROW4(8, Y3, Y4, Y5)
	ROW4(16, Y6, Y7, Y8)
	ROW4(24, Y9, Y10, Y11)
	ADDQ $64, SI
	ADDQ $192, DI
	DECQ CX
	JNZ  loop

	VMOVUPD (R10), Y15 // alpha in every lane
	SCALE3(Y0, Y1, Y2)
	SCALE3(Y3, Y4, Y5)
	SCALE3(Y6, Y7, Y8)
	SCALE3(Y9, Y10, Y11)
	VMOVDQU 64(R10), Y12 // column masks
	VMOVDQU 96(R10), Y13
	VMOVDQU 128(R10), Y14

	TESTQ R9, R9
	JZ    store
	UPDATE3(Y0, Y1, Y2)
	UPDATE3(Y3, Y4, Y5)
	UPDATE3(Y6, Y7, Y8)
	UPDATE3(Y9, Y10, Y11)

store:
	STORE3(Y0, Y1, Y2)
	STORE3(Y3, Y4, Y5)
	STORE3(Y6, Y7, Y8)
	STORE3(Y9, Y10, Y11)

done:
	VZEROUPPER
	RET
