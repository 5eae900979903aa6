// Package parallel runs the items of a list on a bounded number of
// goroutines.
package parallel

import (
	"context"
	"sync"
	"sync/atomic"
)

// For calls do(i) for each i in [0, n) on min(workers, n) goroutines,
// each taking the next index not yet taken, and returns when all have
// finished. An index not started when ctx ends is skipped. Which
// goroutine calls do(i), and when, depends on the scheduling: do(i)
// should write only what belongs to i, so that the results do not.
func For(ctx context.Context, n, workers int, do func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n && ctx.Err() == nil; i = int(next.Add(1)) - 1 {
				do(i)
			}
		}()
	}
	wg.Wait()
}
