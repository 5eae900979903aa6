//go:build linux

package dense

import (
	"time"

	"golang.org/x/sys/unix"
)

// cpuTime returns the CPU time of the process. With GOMAXPROCS=1 only one
// thread runs Go code at a time, so it counts our own work (and gonum's,
// whose Dgemm hands work to goroutines on other threads), but not the time
// other processes of a shared machine hold the core.
func cpuTime() (time.Duration, bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts) != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
