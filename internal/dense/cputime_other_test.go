//go:build !linux

package dense

import "time"

// cpuTime is not available here: benchmarks fall back to wall time.
func cpuTime() (time.Duration, bool) { return 0, false }
