package sdp

import "runtime"

// maxWorkers caps the goroutines that share one step of the Schur
// complement's assembly (the dense kernels have their own cap).
const maxWorkers = 4

// workers returns how many goroutines share work that can keep at most
// most of them busy: up to GOMAXPROCS and maxWorkers, and at least 1.
func workers(most int) int {
	return max(1, min(runtime.GOMAXPROCS(0), maxWorkers, most))
}
