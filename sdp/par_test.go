package sdp

import (
	"math"
	"runtime"
	"testing"
)

// TestSchurBitIdentical checks that the shared sparse low-rank route
// assembles the same bits of B whatever GOMAXPROCS: the Schur complement
// of random mixed problems, with every batch shared (lrPairsPerWorker =
// lrProductsPerWorker = 1), is assembled with 1 to 4 processors and compared bit for bit.
func TestSchurBitIdentical(t *testing.T) {
	expandSmallFactors = false
	savedPairs, savedProducts, savedProcs := lrPairsPerWorker, lrProductsPerWorker, runtime.GOMAXPROCS(0)
	defer func() {
		expandSmallFactors = true
		lrPairsPerWorker, lrProductsPerWorker = savedPairs, savedProducts
		runtime.GOMAXPROCS(savedProcs)
	}()
	lrPairsPerWorker, lrProductsPerWorker = 1, 1
	for _, seed := range []uint64{1, 2, 3} {
		p := randomMixedProblem(seed)
		s := randomIterate(t, p, seed)
		for _, pb := range s.md.psd {
			pb.lr = nil // the sparse route
		}
		var want []float64
		for procs := 1; procs <= 4; procs++ {
			runtime.GOMAXPROCS(procs)
			s.sch = newSchur(s.md)
			s.sch.assemble(s.md, s.xinv, s.Y, s.LX, &s.LY, s.lpD, s.r0lp, true)
			if want == nil {
				want = s.sch.b
				continue
			}
			for i, v := range s.sch.b {
				if math.Float64bits(v) != math.Float64bits(want[i]) {
					t.Fatalf("seed %d, GOMAXPROCS=%d: B element %d = %v, want %v (GOMAXPROCS=1)", seed, procs, i, v, want[i])
				}
			}
		}
	}
}

// TestOwnerCuts checks that the cuts grow from t0 to the end and never
// split the factors of one owner.
func TestOwnerCuts(t *testing.T) {
	owners := []int{0, 0, 1, 2, 2, 2, 2, 2, 3, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7}
	fs := make([]ownedFactor, len(owners))
	for i, o := range owners {
		fs[i].owner = o
	}
	for t0 := range fs {
		for w := 1; w <= maxWorkers; w++ {
			cuts := ownerCuts(nil, fs, t0, w)
			if cuts[0] != t0 || cuts[len(cuts)-1] != len(fs) || len(cuts) > w+1 {
				t.Fatalf("t0 %d, w %d: cuts %v", t0, w, cuts)
			}
			for c := 1; c < len(cuts); c++ {
				if cuts[c] <= cuts[c-1] || (c < len(cuts)-1 && owners[cuts[c]] == owners[cuts[c]-1]) {
					t.Fatalf("t0 %d, w %d: cuts %v", t0, w, cuts)
				}
			}
		}
	}
}

// TestEvenCuts checks that the cuts cover [0, dim) in at most w increasing
// blocks of lengths that differ by at most one.
func TestEvenCuts(t *testing.T) {
	for dim := 1; dim <= 9; dim++ {
		for w := 1; w <= maxWorkers; w++ {
			cuts := evenCuts(nil, dim, w)
			if cuts[0] != 0 || cuts[len(cuts)-1] != dim || len(cuts) > w+1 {
				t.Fatalf("dim %d, w %d: cuts %v", dim, w, cuts)
			}
			for c := 1; c < len(cuts); c++ {
				if l := cuts[c] - cuts[c-1]; l < dim/w || l > dim/w+1 {
					t.Fatalf("dim %d, w %d: cuts %v", dim, w, cuts)
				}
			}
		}
	}
}

// TestMulSavedBitIdentical checks that the product with the saved Schur
// complement gives the bits of the serial row-by-row product whatever
// GOMAXPROCS, on an order large enough to be shared.
func TestMulSavedBitIdentical(t *testing.T) {
	savedProcs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(savedProcs)
	const m = 700
	s := &schur{m: m, ld: m + 1, b: make([]float64, (m+1)*(m+1)), diag: make([]float64, m)}
	x := make([]float64, m)
	for i := range s.b {
		s.b[i] = math.Sin(float64(i))
	}
	for i := range x {
		s.diag[i] = 2 + math.Cos(float64(i))
		x[i] = math.Sin(float64(3 * i))
	}
	// The serial product, row by row.
	want := make([]float64, m)
	for i := 0; i < m; i++ {
		want[i] = s.diag[i] * x[i]
	}
	for i := 0; i < m; i++ {
		acc := 0.0
		for t, u := range s.b[i*s.ld+i+1 : i*s.ld+m] {
			j := i + 1 + t
			acc += u * x[j]
			want[j] += u * x[i]
		}
		want[i] += acc
	}
	for procs := 1; procs <= 4; procs++ {
		runtime.GOMAXPROCS(procs)
		got := make([]float64, m)
		s.mulSaved(x, got)
		for i, v := range got {
			if math.Float64bits(v) != math.Float64bits(want[i]) {
				t.Fatalf("GOMAXPROCS=%d: element %d = %v, want %v", procs, i, v, want[i])
			}
		}
	}
}
