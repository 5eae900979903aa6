package parallel

import (
	"context"
	"sync/atomic"
	"testing"
)

// TestFor checks that every index is done once, whatever the number of
// workers, and that none is started after the context ends.
func TestFor(t *testing.T) {
	for _, workers := range []int{1, 2, 7, 100} {
		done := make([]int32, 50)
		For(context.Background(), len(done), workers, func(i int) { atomic.AddInt32(&done[i], 1) })
		for i, d := range done {
			if d != 1 {
				t.Fatalf("%d workers: index %d done %d times", workers, i, d)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	For(ctx, 10, 1, func(int) { calls.Add(1); cancel() })
	if calls.Load() != 1 {
		t.Errorf("%d calls after the context ended, want 1", calls.Load())
	}
}
