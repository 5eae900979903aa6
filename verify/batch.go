package verify

import (
	"context"
	"errors"
	"math"

	"github.com/nnbound/nnbound/internal/parallel"
)

// processBatch runs process on the items of a batch on up to workers
// goroutines; result i is item i's, whatever the scheduling, or nil if
// ctx ended before item i was started. Both searches (Decide and
// DecideTop1) bound their batches with it, and merge the results in
// batch order, so their trees do not depend on the scheduling.
func processBatch[N, O any](ctx context.Context, workers int, batch []N, process func(N) *O) []*O {
	outs := make([]*O, len(batch))
	parallel.For(ctx, len(batch), workers, func(i int) { outs[i] = process(batch[i]) })
	return outs
}

// stopReason returns the reason of a search stopped by the context
// error err: Timeout for a deadline, else Cancelled.
func stopReason(err error) Reason {
	if errors.Is(err, context.DeadlineExceeded) {
		return Timeout
	}
	return Cancelled
}

// splitBySmear returns the coordinate of the box [lo, hi] to halve: the
// one of largest width_i * (|a_i| + |b_i|), a and b two gradients, or,
// where both vanish, of largest width_i * weight_i; -1 if no coordinate
// can be halved in float64.
func splitBySmear(lo, hi, a, b, weight []float64) int {
	best, arg, bestW, argW := 0.0, -1, -1.0, -1
	for i := range lo {
		mid := lo[i]/2 + hi[i]/2
		if !(lo[i] < mid && mid < hi[i]) {
			continue
		}
		w := hi[i] - lo[i]
		if s := w * (math.Abs(a[i]) + math.Abs(b[i])); s > best {
			best, arg = s, i
		}
		if s := w * weight[i]; s > bestW {
			bestW, argW = s, i
		}
	}
	if arg < 0 {
		return argW
	}
	return arg
}
