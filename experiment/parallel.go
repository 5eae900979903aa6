package experiment

import (
	"context"
	"runtime"
	"sync"
)

// DefaultJobs is the default number of certifications to run at once: one
// per CPU (the solver itself runs on one).
func DefaultJobs() int { return max(runtime.NumCPU(), 1) }

// Parallel calls do(ctx, i) for i in [0, n) on up to jobs goroutines and
// returns the first error (cancelling the others). A panic in do is
// re-raised in the caller's goroutine once the others have stopped, so
// that the caller reports it like any other bug instead of the runtime killing
// the process with a stack dump.
func Parallel(ctx context.Context, n, jobs int, do func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var (
		wg     sync.WaitGroup
		once   sync.Once
		first  error
		panics = make(chan any, max(jobs, 1))
	)
	stop := func(err error) { once.Do(func() { first = err; cancel() }) }
	for range min(jobs, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					panics <- r
					stop(context.Canceled)
					for range next { // let the feeder finish
					}
				}
			}()
			for i := range next {
				if err := do(ctx, i); err != nil {
					stop(err)
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
	select {
	case r := <-panics:
		panic(r)
	default:
	}
	if first == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return first
}
