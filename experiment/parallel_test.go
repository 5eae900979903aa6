package experiment

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestParallel(t *testing.T) {
	for _, jobs := range []int{1, 2, 5} {
		var sum atomic.Int64
		err := Parallel(context.Background(), 100, jobs, func(_ context.Context, i int) error {
			sum.Add(int64(i))
			return nil
		})
		if err != nil || sum.Load() != 4950 {
			t.Errorf("jobs %d: sum %d, error %v", jobs, sum.Load(), err)
		}
	}
	boom := errors.New("boom")
	err := Parallel(context.Background(), 100, 3, func(ctx context.Context, i int) error {
		if i == 7 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want boom", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Parallel(ctx, 10, 2, func(context.Context, int) error { return nil }); err == nil {
		t.Error("no error from a cancelled context")
	}
}

// TestParallelPanic checks that a panic in a worker reaches the caller,
// where run's recover turns it into one line.
func TestParallelPanic(t *testing.T) {
	defer func() {
		if r := recover(); r != "worker bug" {
			t.Errorf("recovered %v, want the worker's panic", r)
		}
	}()
	Parallel(context.Background(), 50, 2, func(_ context.Context, i int) error {
		if i == 3 {
			panic("worker bug")
		}
		return nil
	})
	t.Error("parallel returned after a panic")
}
