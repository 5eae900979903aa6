package main

import (
	"context"
	"runtime"
	"sync"
)

// defaultJobs is the default of --jobs: one certification per CPU (the
// solver itself runs on one).
func defaultJobs() int { return max(runtime.NumCPU(), 1) }

// parallel calls do(ctx, i) for i in [0, n) on up to jobs goroutines and
// returns the first error (cancelling the others).
func parallel(ctx context.Context, n, jobs int, do func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for range min(jobs, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := do(ctx, i); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return first
}
