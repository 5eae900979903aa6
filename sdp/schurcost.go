package sdp

import (
	"cmp"
	"slices"
)

// formula is how the sparse-sparse part of a row of the Schur complement
// is computed (Fujisawa, Kojima and Nakata, Math. Programming 79, 1997).
// For the pieces p (this row) and q (every later piece in the block),
//
//	B_pq = Tr(F_p X^{-1} F_q Y) = F_q • G,   G = X^{-1} F_p Y,
//
// with K the rows touched by F_p, and k = |K|:
//
//	F1: form G densely as X^{-1}[:,K] (F_p Y)[K,:]: one n x k x n GEMM,
//	    then each F_q • G costs nnz(F_q) (batched over up to 64 rows,
//	    which costs packing G).
//	F2: form only (F_p Y)[K,:] and, for each entry (c,d) of F_q, the
//	    entry G[c,d] as a dot product of length k.
//	F3: expand both: B_pq = sum v w X^{-1}[b,c] Y[d,a] over the entries
//	    (a,b,v) of F_p and (c,d,w) of F_q, nnz(F_p) nnz(F_q) terms.
//
// F1 pays off for dense F_p, F3 for very sparse ones.
type formula int

const (
	formulaF3 formula = iota
	formulaF2
	formulaF1
)

// String names the formula as in the paper.
func (f formula) String() string {
	switch f {
	case formulaF1:
		return "F1"
	case formulaF2:
		return "F2"
	case formulaF3:
		return "F3"
	}
	return "F?"
}

// Relative costs, in nanoseconds per basic operation, of the loops the
// formulas run. Measured single-threaded on the development machine; only
// their ratios matter.
const (
	costGemmFlop   = 0.05 // one multiply-add inside a GEMM
	costAxpy       = 0.5  // one multiply-add of a contiguous axpy or dot
	costScattered  = 2.0  // one term X[b,c]*Y[d,a] gathered from two rows
	costInnerEntry = 0.3  // one entry of F_q in a batched F_q • G (per row)
	costPack       = 1.0  // packing one entry of G into the batch
	costDotCall    = 2.0  // the overhead of one dot product call
	costBatchAxpy  = 0.15 // one multiply-add of the batched sparse low-rank route

	// The low-rank routes (schurlr.go), fitted to the certificate SDPs of
	// the authors' QC set at l = 3 (n = 51, 3732 factors of 12 nonzeros:
	// dense 47 ms, sparse 80 ms an iteration) and to the lowrank
	// benchmark with n = 300 (2983 factors of 20: sparse faster by 56 ms).
	costLRGemmFlop = 0.033 // one multiply-add of the Gram GEMMs (n x r panels)
	costLRPair     = 2.7   // one factor pair added to the Schur complement (dense route)
	costLRPairBat  = 7.0   // one factor pair in the sparse route's batch loop
)

// chooseFormulas orders the sparse pieces of the block (R0 included) by
// decreasing number of nonzeros and picks the cheapest formula for each,
// given that the row of piece p pairs it with the pieces after it.
func (pb *psdBlock) chooseFormulas() {
	pb.sparse = pb.sparse[:0]
	pb.lowrank = pb.lowrank[:0]
	for _, pc := range pb.pieces {
		if len(pc.exp) > 0 {
			pb.sparse = append(pb.sparse, pc)
		}
		if len(pc.fac) > 0 {
			pb.lowrank = append(pb.lowrank, pc)
		}
	}
	if pb.r0 != nil && len(pb.r0.exp) > 0 {
		pb.sparse = append(pb.sparse, pb.r0)
	}
	slices.SortStableFunc(pb.sparse, func(a, b *piece) int {
		return cmp.Compare(len(b.exp), len(a.exp))
	})
	// suffix[p] = sum of nnz over pieces p.. (expanded).
	suffix := make([]float64, len(pb.sparse)+1)
	for p := len(pb.sparse) - 1; p >= 0; p-- {
		suffix[p] = suffix[p+1] + float64(len(pb.sparse[p].exp))
	}
	n := float64(pb.n)
	for p, pc := range pb.sparse {
		nz := float64(len(pc.exp))
		k := float64(len(pc.rows))
		s := suffix[p]
		f1 := costGemmFlop*n*n*k + costAxpy*n*nz + costPack*n*(n+1)/2 + costInnerEntry*s
		f2 := costAxpy*(n*nz+n*k) + (costDotCall+costAxpy*k)*s
		f3 := costScattered * nz * s
		switch {
		case f3 <= f2 && f3 <= f1:
			pc.form = formulaF3
		case f2 <= f1:
			pc.form = formulaF2
		default:
			pc.form = formulaF1
		}
	}
	pb.lr = nil
	if pb.lowRankDense() {
		pb.lr = pb.buildLowRank()
	}
	pb.facs = pb.facs[:0]
	for _, pc := range pb.lowrank {
		for _, f := range pc.fac {
			pb.facs = append(pb.facs, ownedFactor{factor: f, owner: pc.con})
		}
	}
	pb.crossSparse = false
	if len(pb.lowrank) > 0 {
		for _, pc := range pb.sparse {
			if pc != pb.r0 && pc.form != formulaF1 {
				pb.crossSparse = true
			}
		}
	}
}
