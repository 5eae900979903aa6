//go:build linux

package dense

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadTime returns the CPU time of the calling thread, which the caller
// has locked to its goroutine. On a shared machine it counts only our own
// work, not the time other processes hold the core.
func threadTime() (time.Duration, bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
