package bounds

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/spec"
)

// countdown is a context that is done from its n-th call of Err on, to
// cancel back-substitution in the middle of a value's batches without a
// clock.
type countdown struct {
	context.Context
	n atomic.Int64
}

// Err returns context.Canceled from the n-th call on.
func (c *countdown) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// cancelOnWrite cancels its context at the first line logged.
type cancelOnWrite struct {
	cancel context.CancelFunc
	buf    bytes.Buffer
}

// Write records p and cancels.
func (w *cancelOnWrite) Write(p []byte) (int, error) {
	w.cancel()
	return w.buf.Write(p)
}

// TestGraphPairCancel checks that GraphPairContext and GraphSingleContext
// stop with the context's error when it is cancelled before the call,
// after the first value back-substituted (the log's first line: none
// follows), and in the middle of a value's batches.
func TestGraphPairCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 1))
	g1 := randGraph(rng)
	g2 := perturbed(rng, g1, 0.01)
	in := spec.Inputs{Box: randBox(rng, g1.InputSize(), 0.05)}
	opts := DefaultGraphOptions()
	opts.Workers, opts.Batch = 1, 1
	if _, err := GraphPairContext(context.Background(), g1, g2, in, opts); err != nil {
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := GraphPairContext(done, g1, g2, in, opts); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before: error %v", err)
	}
	if _, err := GraphSingleContext(done, g1, in.Box, opts); !errors.Is(err, context.Canceled) {
		t.Errorf("single, cancelled before: error %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &cancelOnWrite{cancel: cancel}
	logged := opts
	logged.Log = w
	if _, err := GraphPairContext(ctx, g1, g2, in, logged); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled after a value: error %v", err)
	}
	if n := bytes.Count(w.buf.Bytes(), []byte("\n")); n != 1 {
		t.Errorf("cancelled at the first value logged: %d values logged\n%s", n, w.buf.String())
	}
	for _, n := range []int64{1, 3, 20} {
		c := &countdown{Context: context.Background()}
		c.n.Store(n)
		if _, err := GraphPairContext(c, g1, g2, in, opts); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled at check %d: error %v", n, err)
		}
	}
	dl, stop := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer stop()
	if _, err := GraphPairContext(dl, g1, g2, in, opts); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline passed: error %v", err)
	}
}

// TestPairCancel checks that PairContext stops with the context's error
// when it is cancelled before the call or at a layer boundary, with and
// without a split box, and gives Pair's bounds when it is not.
func TestPairCancel(t *testing.T) {
	f1 := randnet.Paper(3, 4, 3, 10, 2)
	f2 := randnet.Paper(4, 4, 3, 10, 2)
	in := spec.Inputs{Box: spec.Box{Lo: []float64{-1, -1, -1, -1}, Hi: []float64{1, 1, 1, 1}}}
	for _, split := range []int{1, 4} {
		opts := DefaultOptions()
		opts.Split = split
		want, err := Pair(f1, f2, in, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := PairContext(context.Background(), f1, f2, in, opts)
		if err != nil || !slices.Equal(got.Output, want.Output) {
			t.Fatalf("split %d, not cancelled: error %v, output %v, want %v", split, err, got.Output, want.Output)
		}
		done, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := PairContext(done, f1, f2, in, opts); !errors.Is(err, context.Canceled) {
			t.Errorf("split %d, cancelled before: error %v", split, err)
		}
		for _, n := range []int64{1, 3} {
			c := &countdown{Context: context.Background()}
			c.n.Store(n)
			if _, err := PairContext(c, f1, f2, in, opts); !errors.Is(err, context.Canceled) {
				t.Errorf("split %d, cancelled at check %d: error %v", split, n, err)
			}
		}
	}
}

// TestSingleCancel checks that SingleContext looks at the context once
// before every layer (a countdown of as many checks as layers lets the
// pass end, one fewer stops it with the context's error), stops with the
// context's error when it is cancelled before the call, with and without
// a split box and for both methods, and gives Single's bounds when it is
// not.
func TestSingleCancel(t *testing.T) {
	f := randnet.Paper(3, 4, 3, 10, 2)
	box := spec.Box{Lo: []float64{-1, -1, -1, -1}, Hi: []float64{1, 1, 1, 1}}
	for _, m := range []Method{MethodSymbolic, MethodOptimised} {
		opts := DefaultOptions()
		opts.Method = m
		layers := int64(len(f.Layers))
		c := &countdown{Context: context.Background()}
		c.n.Store(layers)
		if _, err := SingleContext(c, f, box, opts); err != nil {
			t.Errorf("%v: %d checks for %d layers: error %v", m, layers, layers, err)
		}
		c.n.Store(layers - 1)
		if _, err := SingleContext(c, f, box, opts); !errors.Is(err, context.Canceled) {
			t.Errorf("%v: %d checks for %d layers: error %v", m, layers-1, layers, err)
		}
		for _, split := range []int{1, 4} {
			opts.Split = split
			want, err := Single(f, box, opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := SingleContext(context.Background(), f, box, opts)
			if err != nil || !slices.Equal(got.Post[len(got.Post)-1], want.Post[len(want.Post)-1]) {
				t.Fatalf("%v, split %d, not cancelled: error %v", m, split, err)
			}
			done, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := SingleContext(done, f, box, opts); !errors.Is(err, context.Canceled) {
				t.Errorf("%v, split %d, cancelled before: error %v", m, split, err)
			}
			c.n.Store(layers + 1) // the first piece and a layer of the next
			if _, err := SingleContext(c, f, box, opts); split > 1 && !errors.Is(err, context.Canceled) {
				t.Errorf("%v, split %d, cancelled in the second piece: error %v", m, split, err)
			}
		}
	}
}
