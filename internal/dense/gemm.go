package dense

import (
	"sync"

	"gonum.org/v1/gonum/blas"
)

// Blocking of the GEMM driver (Goto's algorithm as in BLIS): C is cut into
// column blocks of nc, the inner dimension into slices of kc, and rows into
// blocks of mc. Per (jc, pc) a kc x nc slice of op(B) is packed once (it
// lives in L3); per ic an mc x kc block of op(A) is packed (it lives in L2);
// the micro-kernel then sweeps the block with one kc x nr panel of B, which
// stays in L1/L2 while every mr-row panel of the A block meets it. The sizes
// were tuned on AMD Zen 5 (48 KiB L1d, 1 MiB L2).
//
// They are variables only so that tests can shrink them to cross every
// block edge with small matrices.
var (
	kc = 256
	mc = 144
	nc = 2400
)

// smallGemm is the size, measured as m*n*k, under which Dgemm calls gonum
// directly: packing does not pay for itself on tiny products. (A variable
// so that tests can send small products through the blocked code.)
var smallGemm = 11 * 11 * 11

// part says which elements of C a product updates.
type part uint8

const (
	full  part = iota
	lower      // only elements on or below the diagonal
	upper      // only elements on or above the diagonal
)

// Buffers come from pools, so that repeated calls allocate nothing: one
// pool per use, so that a small buffer of one use is not handed to another
// that needs a large one.
var (
	poolA   = sync.Pool{New: func() any { return new([]float64) }} // packed A
	poolB   = sync.Pool{New: func() any { return new([]float64) }} // packed B
	poolTmp = sync.Pool{New: func() any { return new([]float64) }} // other scratch
)

// getBuf returns a buffer of length n from the pool; put it back with
// pool.Put.
func getBuf(pool *sync.Pool, n int) *[]float64 {
	p := pool.Get().(*[]float64)
	if cap(*p) < n {
		*p = make([]float64, n)
	}
	*p = (*p)[:n]
	return p
}

// Dgemm computes
//
//	C = alpha * op(A) * op(B) + beta * C
//
// with gonum's row-major conventions and argument checks. Large products
// are shared among goroutines (par.go).
func (impl Impl) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	impl.dgemm(true, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// DgemmSerial is Dgemm on the calling goroutine only, for callers that
// already keep every core busy (the bound propagation of a branch and
// bound). Its result is Dgemm's to the bit.
func (impl Impl) DgemmSerial(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	impl.dgemm(false, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// dgemm is Dgemm, sharing large products among goroutines if share.
func (impl Impl) dgemm(share bool, tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if checkGemm(tA, tB, m, n, k, a, lda, b, ldb, c, ldc) {
		return
	}
	if m*n*k < smallGemm {
		impl.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	opA := operand{data: a, ld: lda, trans: isTrans(tA)}
	opB := operand{data: b, ld: ldb, trans: isTrans(tB)}
	w := 1
	if share {
		w = gemmWorkers(m, n, k, full)
	}
	gemmOn(w, m, n, k, alpha, &opA, &opB, beta, c, ldc, full)
}

// gemm computes C = alpha * A * B + beta * C for the m x k operand a and
// the k x n operand b, updating only the given part of C (m == n unless
// part is full). Where beta is zero, C is not read. m and n are positive.
// Large products are shared among goroutines (par.go).
func gemm(m, n, k int, alpha float64, a, b *operand, beta float64, c []float64, ldc int, pt part) {
	gemmOn(gemmWorkers(m, n, k, pt), m, n, k, alpha, a, b, beta, c, ldc, pt)
}

// gemmOn is gemm shared among w goroutines (w = 1: the caller's only).
func gemmOn(w, m, n, k int, alpha float64, a, b *operand, beta float64, c []float64, ldc int, pt part) {
	if k == 0 || alpha == 0 {
		scale(m, n, beta, c, ldc, pt)
		return
	}
	if w > 1 {
		gemmParallel(w, m, n, k, alpha, a, b, beta, c, ldc, pt)
		return
	}
	gemmBlocked(m, n, k, alpha, a, b, beta, c, ldc, nil, pt)
}

// DgemmRows adds the product of the m x k matrix A and the k x n matrix B
// (row-major, leading dimensions lda and ldb) to rows of C held anywhere
// in c: for each i,
//
//	c[off[i] + j] += sum_p A[i, p] B[p, j],  j < n,
//
// rows that overlap adding up (a transposed convolution adds each kernel
// offset's rows at a shift). It runs on the calling goroutine; groups of
// rows whose offsets step evenly, by at least n, go straight to C. It
// panics on bad dimensions.
func (Impl) DgemmRows(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, off []int) {
	if len(off) != m {
		panic("dense: DgemmRows: len(off) != m")
	}
	for _, o := range off {
		if o < 0 || o+n > len(c) {
			panic(errShortC)
		}
	}
	if checkFactors(blas.NoTrans, blas.NoTrans, m, n, k, a, lda, b, ldb) || k == 0 {
		return
	}
	opA := operand{data: a, ld: lda}
	opB := operand{data: b, ld: ldb}
	gemmBlocked(m, n, k, 1, &opA, &opB, 1, c, 0, off, full)
}

// gemmBlocked is gemm on one goroutine, for k and alpha non-zero; with
// off (part full only), row i of C is at c[off[i]:] rather than c[i*ldc:].
func gemmBlocked(m, n, k int, alpha float64, a, b *operand, beta float64, c []float64, ldc int, off []int, pt part) {
	pa := getBuf(&poolA, min(mc, roundUp(m, mr))*min(kc, k)+mr*nr)
	defer poolA.Put(pa)
	bufA, bufB := *pa, []float64(nil)
	if b.packed == nil {
		pb := getBuf(&poolB, min(kc, k)*min(nc, roundUp(n, nr)))
		defer poolB.Put(pb)
		bufB = *pb
	}
	tile := bufA[len(bufA)-mr*nr:] // for tiles only partly in C
	for jc := 0; jc < n; jc += nc {
		nb := min(nc, n-jc)
		// Rows that can hold elements of the part within columns [jc, jc+nb).
		iLo, iHi := 0, m
		switch pt {
		case lower:
			iLo = jc
		case upper:
			iHi = min(m, jc+nb)
		}
		for pc := 0; pc < k; pc += kc {
			kb := min(kc, k-pc)
			bet := beta
			if pc > 0 {
				bet = 1
			}
			if b.packed != nil {
				bufB = b.packed.block(jc, pc, nb)
			} else {
				packB(bufB, b, pc, jc, kb, nb)
			}
			for ic := iLo; ic < iHi; ic += mc {
				mb := min(mc, iHi-ic)
				packA(bufA, a, ic, pc, mb, kb)
				macroKernel(mb, nb, kb, alpha, bufA, bufB, bet, c, ldc, off, ic, jc, pt, tile)
			}
		}
	}
}

// macroKernel multiplies the packed mb x kb block of A by the packed
// kb x nb block of B into the block of C at (i0, j0), one micro-tile at a
// time: tiles of the part go straight to C, tiles that straddle the
// diagonal of a triangular part go through the buffer tile. With off, row
// i of C is at c[off[i]:] (gemmBlocked), and a tile whose rows do not step
// evenly goes through the buffer too.
func macroKernel(mb, nb, kb int, alpha float64, bufA, bufB []float64, beta float64, c []float64, ldc int, off []int, i0, j0 int, pt part, tile []float64) {
	for jr := 0; jr < nb; jr += nr {
		cols := min(nr, nb-jr)
		j := j0 + jr
		bp := bufB[jr*kb:]
		for ir := 0; ir < mb; ir += mr {
			rows := min(mr, mb-ir)
			i := i0 + ir
			ap := bufA[ir*kb:]
			inside := true
			switch pt {
			case lower:
				if j > i+rows-1 {
					continue
				}
				inside = j+cols-1 <= i
			case upper:
				if j+cols-1 < i {
					continue
				}
				inside = j >= i+rows-1
			}
			if off != nil {
				rowsAt(kb, ap, bp, c, off[i:i+rows], j, cols, alpha, beta, tile)
				continue
			}
			if inside {
				kernel(kb, ap, bp, c[i*ldc+j:], ldc, alpha, beta, rows, cols)
				continue
			}
			kernel(kb, ap, bp, tile, nr, alpha, 0, mr, nr)
			merge(rows, cols, tile, beta, c[i*ldc+j:], ldc, i-j, pt)
		}
	}
}

// rowsAt runs the micro-kernel for the tile of C whose rows are at
// c[off[l]+j:], l < len(off): in place when the offsets step evenly by at
// least cols, else through the buffer tile.
func rowsAt(kb int, ap, bp, c []float64, off []int, j, cols int, alpha, beta float64, tile []float64) {
	rows, ld := len(off), cols
	if rows > 1 {
		ld = off[1] - off[0]
	}
	even := ld >= cols
	for l := 2; l < rows && even; l++ {
		even = off[l]-off[l-1] == ld
	}
	if even {
		kernel(kb, ap, bp, c[off[0]+j:], ld, alpha, beta, rows, cols)
		return
	}
	kernel(kb, ap, bp, tile, nr, alpha, 0, mr, nr)
	for l, o := range off {
		merge(1, cols, tile[l*nr:], beta, c[o+j:], 0, 0, full)
	}
}

// merge adds the rows x cols tile t (leading dimension nr) into c as
// c = beta*c + t, for the elements in the part; diag is the row index
// minus the column index of the tile's first element.
func merge(rows, cols int, t []float64, beta float64, c []float64, ldc, diag int, pt part) {
	for i := range rows {
		lo, hi := 0, cols
		switch pt {
		case lower:
			hi = min(cols, i+diag+1)
		case upper:
			lo = max(0, i+diag)
		}
		if lo >= hi {
			continue
		}
		ci := c[i*ldc+lo : i*ldc+hi]
		ti := t[i*nr+lo : i*nr+hi]
		switch beta {
		case 0:
			copy(ci, ti)
		case 1:
			for j, v := range ti {
				ci[j] += v
			}
		default:
			for j, v := range ti {
				ci[j] = beta*ci[j] + v
			}
		}
	}
}

// scale sets C = beta*C on the part of the m x n matrix c; beta == 0 sets
// zeros without reading C.
func scale(m, n int, beta float64, c []float64, ldc int, pt part) {
	if beta == 1 {
		return
	}
	for i := range m {
		lo, hi := 0, n
		switch pt {
		case lower:
			hi = min(n, i+1)
		case upper:
			lo = i
		}
		if lo >= hi {
			continue
		}
		ci := c[i*ldc+lo : i*ldc+hi]
		if beta == 0 {
			clear(ci)
			continue
		}
		for j := range ci {
			ci[j] *= beta
		}
	}
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }
