//go:build !linux

package dense

import "time"

// threadTime is not available here: benchmarks fall back to wall time.
func threadTime() (time.Duration, bool) { return 0, false }
