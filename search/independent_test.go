package search

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// TestIndependentSameBox: MaxError on an Independent input set is
// MaxErrorIndependent with its box twice.
func TestIndependentSameBox(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 0))
	for trial := range 10 {
		nx := 1 + rng.IntN(3)
		f1 := boundstest.Network(rng, []int{nx, 5, 2}, 1)
		f2 := boundstest.Perturb(rng, f1, 0.1)
		box := spec.Box{Lo: make([]float64, nx), Hi: make([]float64, nx)}
		for i := range nx {
			box.Lo[i], box.Hi[i] = -1-rng.Float64(), rng.Float64()
		}
		opts := DefaultOptions()
		opts.Samples, opts.Seed = 100, uint64(trial)
		a, err := MaxError(context.Background(), f1, f2, spec.Inputs{Box: box, Pairing: spec.Independent}, spec.Quantity{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		b, err := MaxErrorIndependent(context.Background(), f1, f2, box, box, spec.Quantity{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("trial %d: MaxError %+v, MaxErrorIndependent %+v", trial, a, b)
		}
	}
}

// TestIndependentBoxes searches x1 and x2 in different boxes: the inputs
// found lie in their own boxes, the error is attained and, for one input
// and piecewise-linear networks, the exact maximum agrees with a fine grid
// of the rectangle up to the grid's Lipschitz slack.
func TestIndependentBoxes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 0))
	for trial := range 40 {
		nOut := 1 + rng.IntN(3)
		f1, f2, in := randomInstance(rng, nOut)
		box1 := in.Box
		lo2 := box1.Lo[0] + rng.Float64()
		box2 := spec.Box{Lo: []float64{lo2}, Hi: []float64{lo2 + 0.1 + 2*rng.Float64()}}
		q := spec.Quantity{Norm: spec.Norm(rng.IntN(2))}
		exactOnly := DefaultOptions()
		exactOnly.Grid, exactOnly.Samples, exactOnly.MaxCorners, exactOnly.Restarts = 0, 0, 0, 0
		ex, err := MaxErrorIndependent(context.Background(), f1, f2, box1, box2, q, exactOnly)
		if err != nil {
			t.Fatal(err)
		}
		if !ex.Exact {
			t.Fatalf("trial %d: not exact", trial)
		}
		const g = 301
		gridOnly := DefaultOptions()
		gridOnly.Exact, gridOnly.Grid, gridOnly.Samples, gridOnly.MaxCorners, gridOnly.Restarts = false, g, 0, 0, 0
		gr, err := MaxErrorIndependent(context.Background(), f1, f2, box1, box2, q, gridOnly)
		if err != nil {
			t.Fatal(err)
		}
		h1 := (box1.Hi[0] - box1.Lo[0]) / (g - 1)
		h2 := (box2.Hi[0] - box2.Lo[0]) / (g - 1)
		slack := math.Sqrt(float64(nOut)) * (lipschitz(f1)*h1 + lipschitz(f2)*h2)
		tol := 1e-12 * (1 + gr.Error)
		if ex.Error < gr.Error-tol || ex.Error > gr.Error+slack+tol {
			t.Fatalf("trial %d: exact %v, grid %v (slack %v)", trial, ex.Error, gr.Error, slack)
		}
		for _, r := range []*Result{ex, gr} {
			if !box1.Contains(r.X1) || !box2.Contains(r.X2) {
				t.Fatalf("trial %d: x1 = %v not in %v or x2 = %v not in %v", trial, r.X1, box1, r.X2, box2)
			}
			if v := reevaluate(t, f1, f2, r, q); v != r.Error {
				t.Fatalf("trial %d: reported %v, re-evaluated %v", trial, r.Error, v)
			}
		}
	}
}

// TestIndependentBoxesSearch runs the sampling phases on two boxes of
// three inputs: inputs in their boxes, attained, deterministic.
func TestIndependentBoxesSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 0))
	f1 := boundstest.Network(rng, []int{3, 6, 6, 2}, 1, nn.Activation{Kind: nn.Tanh})
	f2 := boundstest.Perturb(rng, f1, 0.05)
	box1 := spec.Box{Lo: []float64{-1, -1, 0}, Hi: []float64{0, 1, 0.5}}
	box2 := spec.Box{Lo: []float64{0, -1, 0.25}, Hi: []float64{1, 0, 0.25}}
	opts := DefaultOptions()
	opts.Samples, opts.Restarts, opts.Iters = 200, 2, 30
	opts.ZoomStarts, opts.ZoomRounds, opts.ZoomSamples = 1, 4, 20
	r, err := MaxErrorIndependent(context.Background(), f1, f2, box1, box2, spec.Quantity{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !box1.Contains(r.X1) || !box2.Contains(r.X2) {
		t.Fatalf("x1 = %v not in %v or x2 = %v not in %v", r.X1, box1, r.X2, box2)
	}
	if v := reevaluate(t, f1, f2, r, spec.Quantity{}); v != r.Error {
		t.Fatalf("reported %v, re-evaluated %v", r.Error, v)
	}
	again, _ := MaxErrorIndependent(context.Background(), f1, f2, box1, box2, spec.Quantity{}, opts)
	if !reflect.DeepEqual(r, again) {
		t.Fatalf("not deterministic: %+v vs %+v", r, again)
	}
}

func TestIndependentErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 0))
	f := boundstest.Network(rng, []int{2, 3, 1}, 1)
	g := boundstest.Network(rng, []int{3, 3, 1}, 1)
	box2 := spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}
	box3 := spec.Box{Lo: []float64{-1, -1, -1}, Hi: []float64{1, 1, 1}}
	tests := []struct {
		name       string
		f1, f2     *nn.Network
		box1, box2 spec.Box
		want       error
	}{
		{"x2 box size", f, f, box2, box3, nn.ErrDimension},
		{"x1 box size", f, f, box3, box2, nn.ErrDimension},
		{"networks of different inputs", f, g, box2, box3, nn.ErrDimension},
		{"x2 box inverted", f, f, box2, spec.Box{Lo: []float64{1, 1}, Hi: []float64{0, 0}}, spec.ErrBox},
		{"x2 box empty", f, f, box2, spec.Box{}, spec.ErrBox},
	}
	for _, tc := range tests {
		_, err := MaxErrorIndependent(context.Background(), tc.f1, tc.f2, tc.box1, tc.box2, spec.Quantity{}, DefaultOptions())
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
}
