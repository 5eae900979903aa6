package sdp

import (
	"runtime"

	"github.com/nnbound/nnbound/internal/dense"
)

// maxWorkers caps the goroutines that share one step of the Schur
// complement's assembly (the dense kernels have their own cap).
const maxWorkers = 4

// workers returns how many goroutines share work that can keep at most
// most of them busy: up to GOMAXPROCS and maxWorkers, and at least 1.
func workers(most int) int {
	return max(1, min(runtime.GOMAXPROCS(0), maxWorkers, most))
}

// evenCuts appends to dst the cuts 0 = c_0 < ... < c_q = dim (q <= w) of
// [0, dim) into blocks of about equal length.
func evenCuts(dst []int, dim, w int) []int {
	for c := 0; c < w; c++ {
		if lo := dim * c / w; c == 0 || lo > dst[len(dst)-1] {
			dst = append(dst, lo)
		}
	}
	return append(dst, dim)
}

// share runs f on every block of the cuts, each on its own goroutine but
// the first (see dense.Share).
func share(cuts []int, f func(lo, hi int)) { dense.Share(cuts, f) }
