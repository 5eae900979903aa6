package dense

import (
	"sync"

	"gonum.org/v1/gonum/blas"
)

// PackedB is the second operand op(B) (k x n) of many products, packed
// once into the order the micro-kernel reads it (packB), for callers that
// multiply by the same matrix again and again: the bound propagation takes
// every product of a branch and bound node with a layer's weights. B is
// packed on the first product that uses the packing (small products do
// not), and B must not change while the PackedB is in use. Safe for
// concurrent use.
type PackedB struct {
	tB     blas.Transpose
	k, n   int
	b      []float64
	ldb    int
	kc, nc int // the blocking the packing follows

	once sync.Once
	data []float64 // blocks in gemmBlocked's order: by columns jc, then rows pc
}

// NewPackedB returns op(B) of k x n, with gonum's row-major conventions
// and argument checks (of B only; it panics where Dgemm would).
func NewPackedB(tB blas.Transpose, k, n int, b []float64, ldb int) *PackedB {
	// Checked as the operand of a 1 x n product with a 1 x k A.
	checkGemm(blas.NoTrans, tB, 1, n, k, make([]float64, k), max(1, k), b, ldb, make([]float64, n), max(1, n))
	return &PackedB{tB: tB, k: k, n: n, b: b, ldb: ldb, kc: kc, nc: nc}
}

// pack fills p.data.
func (p *PackedB) pack() {
	size := 0
	for jc := 0; jc < p.n; jc += p.nc {
		size += p.k * roundUp(min(p.nc, p.n-jc), nr)
	}
	p.data = make([]float64, size)
	op := operand{data: p.b, ld: p.ldb, trans: isTrans(p.tB)}
	for jc := 0; jc < p.n; jc += p.nc {
		nb := min(p.nc, p.n-jc)
		for pc := 0; pc < p.k; pc += p.kc {
			packB(p.block(jc, pc, nb), &op, pc, jc, min(p.kc, p.k-pc), nb)
		}
	}
}

// block returns the packed block of rows [pc, pc+kc) and columns [jc,
// jc+nb) of op(B), in packB's layout.
func (p *PackedB) block(jc, pc, nb int) []float64 {
	w := roundUp(nb, nr)
	off := jc/p.nc*p.k*roundUp(p.nc, nr) + pc*w
	return p.data[off : off+min(p.kc, p.k-pc)*w]
}

// DgemmPacked is DgemmSerial(blas.NoTrans, tB, m, n, k, alpha, a, lda, b,
// ldb, beta, c, ldc) for the operand op(B) that b holds, with its result
// to the bit, without packing B again.
func (impl Impl) DgemmPacked(m int, alpha float64, a []float64, lda int, b *PackedB, beta float64, c []float64, ldc int) {
	n, k := b.n, b.k
	if checkGemm(blas.NoTrans, b.tB, m, n, k, a, lda, b.b, b.ldb, c, ldc) {
		return
	}
	if m*n*k < smallGemm || b.kc != kc || b.nc != nc { // the last two: blocking changed by a test
		impl.dgemm(false, blas.NoTrans, b.tB, m, n, k, alpha, a, lda, b.b, b.ldb, beta, c, ldc)
		return
	}
	if k > 0 && alpha != 0 {
		b.once.Do(b.pack)
	}
	opA := operand{data: a, ld: lda}
	opB := operand{data: b.b, ld: b.ldb, trans: isTrans(b.tB), packed: b}
	gemmOn(1, m, n, k, alpha, &opA, &opB, beta, c, ldc, full)
}
