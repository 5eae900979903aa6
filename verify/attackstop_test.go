package verify

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/spec"
)

// TestSearchStopsWithContext checks that the root's search (attacker.search)
// stops once ctx is done: with a context cancelled already it evaluates
// nothing and returns the box's lower corner, where a search of the
// background context finds a larger error elsewhere. A search that ignored
// ctx ran to its end past the deadline and a signal (verify digits_cnn vs
// its int8 copy, --epsilon 0.6 --timeout 5: 53 s).
func TestSearchStopsWithContext(t *testing.T) {
	f := randnet.Paper(3, 4, 2, 10, 2)
	g := randnet.Paper(4, 4, 2, 10, 2)
	in := spec.Inputs{Box: spec.Box{Lo: []float64{-1, -1, -1, -1}, Hi: []float64{1, 1, 1, 1}}}
	a := &attacker{f: f, g: g, in: in, tol: spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{1}}}
	open := []int{0, 1}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	x, _ := a.search(done, in.Box.Lo, in.Box.Hi, open, 0, 1)
	if !slices.Equal(x, in.Box.Lo) {
		t.Errorf("cancelled: searched to %v, want the lower corner %v", x, in.Box.Lo)
	}
	x, _ = a.search(context.Background(), in.Box.Lo, in.Box.Hi, open, 0, 1)
	if slices.Equal(x, in.Box.Lo) {
		t.Errorf("not cancelled: the search stayed at the lower corner %v", x)
	}
}

// countingContext counts the calls of Err, and reports Canceled from the
// first when cancelled is set.
type countingContext struct {
	context.Context
	cancelled bool
	calls     int
}

func (c *countingContext) Err() error {
	c.calls++
	if c.cancelled {
		return context.Canceled
	}
	return nil
}

// TestTop1WalkStopsWithContext checks that the root's walk of the top-1
// decision (top1.walk) looks at ctx and stops once it is done: a context
// cancelled already is looked at once per target class and nothing more,
// where a live one is looked at before every move. A walk that ignored
// ctx ran its RootWalk evaluations past the deadline and a signal (verify
// --property top1 digits_cnn vs digits_cnn_int8_torch, L-inf 4/255 about
// test image 3, --timeout 2: 8.6 s).
func TestTop1WalkStopsWithContext(t *testing.T) {
	f, g, box := int8Pair(t, 3)
	tp, err := newTop1(f, g, spec.Inputs{Box: box}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	n := &top1Node{lo: box.Lo, hi: box.Hi, vol: 1}
	x0 := centre(box.Lo, box.Hi)
	c := argmax(tp.evalF(x0))
	var targets []int
	for j := range f.OutputSize() {
		if j != c {
			targets = append(targets, j)
		}
	}
	for _, cancelled := range []bool{true, false} {
		ctx := &countingContext{Context: context.Background(), cancelled: cancelled}
		tp.walk(ctx, n, c, targets, x0, rand.New(rand.NewPCG(1, 2)))
		switch {
		case cancelled && ctx.calls > walkTargets:
			t.Errorf("cancelled: ctx looked at %d times, want at most %d (once a target)", ctx.calls, walkTargets)
		case !cancelled && ctx.calls <= walkTargets:
			t.Errorf("live: ctx looked at %d times: the walk does not look at it before its moves", ctx.calls)
		}
	}
}
