package dense

import (
	"runtime"
	"sync"
)

// Large products are shared among goroutines by cutting C into blocks
// that one goroutine each computes with the serial driver: column blocks
// for a full or lower C, row blocks for an upper one, so that every block
// keeps the diagonal where the serial driver expects it:
//
//	lower: columns [s, e) hold rows [s, m)     (origin (s, s), part lower)
//	upper: rows [s, e) hold columns [s, n)     (origin (s, s), part upper)
//	full:  columns [s, e) hold rows [0, m)     (origin (0, s))
//
// The cuts are multiples of nr (a multiple of mr), so a block's
// micro-tiles are exactly the tiles the serial driver would use there, and
// every element of C goes through the same packed values, the same
// micro-kernel call and the same order of the inner dimension whatever the
// number of blocks: the result is bit-identical to the serial one for any
// GOMAXPROCS and any load. Only the starting of goroutines allocates.

// maxWorkers caps the goroutines of one product.
const maxWorkers = 4

// parWork is the work (m*n*k, halved for a triangular part) from which a
// product is shared: below it, starting goroutines costs more than it
// saves. (A variable so that tests can send small products through the
// parallel code.)
var parWork = 1 << 22

// parWorkLevel2 is the work (multiply-adds) from which a matrix-vector
// product is shared, whose goroutines each do less than a product's.
// (A variable for the same reason as parWork.)
var parWorkLevel2 = 1 << 16

// gemmWorkers returns how many goroutines gemm shares its product among:
// up to GOMAXPROCS and maxWorkers, one per nr-wide slice of the cut
// dimension at most, and 1 for products below parWork.
func gemmWorkers(m, n, k int, pt part) int {
	work, dim := m*n*k, n
	switch pt {
	case lower:
		work /= 2
	case upper:
		work /= 2
		dim = m
	}
	if work < parWork {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), maxWorkers, (dim+nr-1)/nr)
}

// gemmParallel is gemm shared among w goroutines (the caller's and w-1
// new ones), for k and alpha non-zero.
func gemmParallel(w, m, n, k int, alpha float64, a, b *operand, beta float64, c []float64, ldc int, pt part) {
	dim := n
	if pt == upper {
		dim = m
	}
	var buf [maxWorkers + 1]int
	cuts := splitWork(buf[:0], dim, w, pt != full)
	opA, opB := *a, *b // copies, so that a and b do not escape
	block := func(s, e int) {
		bA, bB := opA, opB
		switch pt {
		case lower:
			bA, bB = opA.sub(s, 0), opB.sub(0, s)
			gemmBlocked(m-s, e-s, k, alpha, &bA, &bB, beta, c[s*ldc+s:], ldc, nil, pt)
		case upper:
			bA, bB = opA.sub(s, 0), opB.sub(0, s)
			gemmBlocked(e-s, n-s, k, alpha, &bA, &bB, beta, c[s*ldc+s:], ldc, nil, pt)
		default:
			bB = opB.sub(0, s)
			gemmBlocked(m, e-s, k, alpha, &bA, &bB, beta, c[s:], ldc, nil, pt)
		}
	}
	Share(cuts, block)
}

// splitWork appends to dst the cuts 0 = s_0 < s_1 < ... < s_q = dim
// (q <= w) of [0, dim) into blocks of about equal work, the inner cuts
// multiples of nr. If tri, slice j of the dimension carries work dim-j (a
// triangle), else 1.
func splitWork(dst []int, dim, w int, tri bool) []int {
	weight := func(j int) int {
		if tri {
			return dim - j
		}
		return 1
	}
	total := 0
	for j := range dim {
		total += weight(j)
	}
	dst = append(dst, 0)
	done := 0
	for j := 0; j < dim && len(dst) < w; j += nr {
		for i := j; i < min(j+nr, dim); i++ {
			done += weight(i)
		}
		// Cut after this slice once the blocks so far hold their share.
		if j+nr < dim && done*w >= total*len(dst) {
			dst = append(dst, j+nr)
		}
	}
	return append(dst, dim)
}

// trsmRightShared is trsmRight with the rows of b shared among goroutines
// once the solve reaches parWork: the rows of X T = B are independent, and
// every row block (cut at multiples of nr, so that tiles and vector heads
// fall where the serial solve puts them) runs the serial recursion, whose
// cuts depend on n only. The result is bit-identical to trsmRight's.
func trsmRightShared(m, n int, t triangle, b []float64, ldb int) {
	w := rangeWorkers(m, m*n*n/2 >= parWork)
	if w <= 1 {
		trsmRight(m, n, t, b, ldb)
		return
	}
	shareRange(m, w, func(lo, hi int) {
		trsmRight(hi-lo, n, t, b[lo*ldb:], ldb)
	})
}

// rangeWorkers returns how many goroutines shareRange should cut [0, dim)
// among: 1 unless share, else up to GOMAXPROCS and maxWorkers, one per
// nr-wide slice at most.
func rangeWorkers(dim int, share bool) int {
	if !share {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), maxWorkers, (dim+nr-1)/nr)
}

// shareRange runs f on the blocks [lo, hi) of a cut of [0, dim) among w
// goroutines at most, the caller's included. The inner cuts are multiples
// of nr, so that micro-tiles and vector heads fall where one call's would.
// (Callers run the serial case without a closure, which would allocate.)
func shareRange(dim, w int, f func(lo, hi int)) {
	var buf [maxWorkers + 1]int
	Share(splitWork(buf[:0], dim, w, false), f)
}

// Share runs f(cuts[q], cuts[q+1]) for every block of the cuts, each on
// its own goroutine but the first, which runs on the caller's, and
// returns when all are done. The blocks must not write to the same memory.
func Share(cuts []int, f func(lo, hi int)) {
	var wg sync.WaitGroup
	for q := 1; q+1 < len(cuts); q++ {
		lo, hi := cuts[q], cuts[q+1]
		wg.Go(func() { f(lo, hi) })
	}
	f(cuts[0], cuts[1])
	wg.Wait()
}
