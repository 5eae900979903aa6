package search

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// pwlActivations are the piecewise-linear activations.
var pwlActivations = []nn.Activation{
	{Kind: nn.ReLU},
	{Kind: nn.LeakyReLU, Alpha: 0.2},
	{Kind: nn.HardTanh, Lo: -1, Hi: 1},
	{Kind: nn.Identity},
}

// randomInstance returns a random 1-input instance of piecewise-linear
// networks: f2 is a perturbed, float16 or unrelated copy of f1.
func randomInstance(rng *rand.Rand, nOut int) (f1, f2 *nn.Network, in spec.Inputs) {
	sizes := []int{1}
	for range 1 + rng.IntN(3) {
		sizes = append(sizes, 2+rng.IntN(6))
	}
	sizes = append(sizes, nOut)
	act := pwlActivations[rng.IntN(len(pwlActivations))]
	f1 = boundstest.Network(rng, sizes, 1, act)
	switch rng.IntN(3) {
	case 0:
		f2 = boundstest.Perturb(rng, f1, 0.1)
	case 1:
		f2 = boundstest.Float16(f1)
	default:
		f2 = boundstest.Network(rng, sizes, 1, act)
	}
	lo := -1 - rng.Float64()
	in = spec.Inputs{Box: spec.Box{Lo: []float64{lo}, Hi: []float64{lo + 0.1 + 2*rng.Float64()}},
		Pairing: spec.Pairing(rng.IntN(3)),
		Quant:   quantise.Format{FracBits: 1 + rng.IntN(4), Rounding: quantise.Rounding(rng.IntN(3))}}
	return f1, f2, in
}

// lipschitz returns a Lipschitz constant of f in the infinity norm of its
// outputs (slopes of the activations used here are at most 1).
func lipschitz(f *nn.Network) float64 {
	l := 1.0
	for _, layer := range f.Layers {
		raw := layer.W.RawMatrix()
		m := 0.0
		for i := range raw.Rows {
			s := 0.0
			for _, w := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
				s += math.Abs(w)
			}
			m = max(m, s)
		}
		l *= m
	}
	return l
}

// reevaluate returns the error of the result's inputs by nn.Network.Eval.
func reevaluate(t *testing.T, f1, f2 *nn.Network, r *Result, q spec.Quantity) float64 {
	t.Helper()
	y1, err := f1.Eval(r.X1)
	if err != nil {
		t.Fatal(err)
	}
	y2, err := f2.Eval(r.X2)
	if err != nil {
		t.Fatal(err)
	}
	return q.Measure(y1, y2)
}

func TestExactMatchesGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 0))
	trials, fine := 80, 5001
	if os.Getenv("NNBOUND_LONG") != "" {
		trials, fine = 2000, 20001
	}
	for trial := range trials {
		nOut := 1 + rng.IntN(3)
		f1, f2, in := randomInstance(rng, nOut)
		opts := DefaultOptions()
		q := spec.Quantity{Norm: spec.Norm(rng.IntN(2))}
		if rng.IntN(4) == 0 {
			q.C = make([]float64, nOut)
			for j := range q.C {
				q.C[j] = rng.NormFloat64()
			}
		}
		exactOnly := opts
		exactOnly.Grid, exactOnly.Samples, exactOnly.MaxCorners, exactOnly.Restarts = 0, 0, 0, 0
		ex, err := MaxError(context.Background(), f1, f2, in, q, exactOnly)
		if err != nil {
			t.Fatal(err)
		}
		if !ex.Exact {
			t.Fatalf("trial %d: not exact", trial)
		}
		g := fine
		if in.Pairing == spec.Independent {
			g = int(math.Sqrt(float64(fine))) + 1
		}
		gridOnly := opts
		gridOnly.Exact, gridOnly.Grid, gridOnly.Samples, gridOnly.MaxCorners, gridOnly.Restarts = false, g, 0, 0, 0
		gr, err := MaxError(context.Background(), f1, f2, in, q, gridOnly)
		if err != nil {
			t.Fatal(err)
		}
		h := (in.Box.Hi[0] - in.Box.Lo[0]) / float64(g-1)
		slack := math.Sqrt(float64(nOut)) * (lipschitz(f1) + lipschitz(f2)) * h
		if q.C != nil {
			slack = 0
			for _, c := range q.C {
				slack += math.Abs(c)
			}
			slack *= (lipschitz(f1) + lipschitz(f2)) * h
		}
		tol := 1e-12 * (1 + gr.Error)
		if ex.Error < gr.Error-tol || ex.Error > gr.Error+slack+tol {
			t.Fatalf("trial %d (%v, %v): exact %v, grid %v (slack %v)", trial, in.Pairing, in.Quant.Rounding, ex.Error, gr.Error, slack)
		}
		for _, r := range []*Result{ex, gr} {
			if v := reevaluate(t, f1, f2, r, q); v != r.Error {
				t.Fatalf("trial %d: reported %v, re-evaluated %v", trial, r.Error, v)
			}
		}
	}
}

func TestAttainedAndInBox(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 0))
	for trial := range 60 {
		f1 := boundstest.Network(rng, []int{1 + rng.IntN(4), 6, 6, 2}, 1)
		f2 := boundstest.Perturb(rng, f1, 0.05)
		in := spec.Inputs{Box: spec.Box{Lo: make([]float64, f1.InputSize()), Hi: make([]float64, f1.InputSize())},
			Pairing: spec.Pairing(rng.IntN(3)), Quant: quantise.Format{FracBits: 3}}
		for i := range in.Box.Lo {
			in.Box.Lo[i], in.Box.Hi[i] = -1, 1
		}
		opts := DefaultOptions()
		opts.Samples, opts.Restarts, opts.Iters, opts.Seed = 200, 4, 30, uint64(trial)
		opts.ZoomStarts, opts.ZoomRounds, opts.ZoomSamples = 2, 4, 20
		r, err := MaxError(context.Background(), f1, f2, in, spec.Quantity{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !in.Box.Contains(r.X1) || !in.Box.Contains(r.X2) {
			t.Fatalf("trial %d: inputs %v, %v outside the box", trial, r.X1, r.X2)
		}
		if in.Pairing != spec.Independent && !reflect.DeepEqual(r.X2, in.X2(r.X1)) {
			t.Fatalf("trial %d: x2 = %v is not paired with x1 = %v", trial, r.X2, r.X1)
		}
		if v := reevaluate(t, f1, f2, r, spec.Quantity{}); v != r.Error {
			t.Fatalf("trial %d: reported %v, re-evaluated %v", trial, r.Error, v)
		}
		again, _ := MaxError(context.Background(), f1, f2, in, spec.Quantity{}, opts)
		if !reflect.DeepEqual(r, again) {
			t.Fatalf("trial %d: not deterministic: %+v vs %+v", trial, r, again)
		}
	}
}

func TestKnownMaximum(t *testing.T) {
	// f1 = sum of tanh(2 x_i) + x_1 x-free bias; f2 = 0: the error is largest
	// at a corner, which local search or the corners find exactly.
	rng := rand.New(rand.NewPCG(3, 0))
	f1 := boundstest.Network(rng, []int{4, 3, 1}, 1, nn.Activation{Kind: nn.Tanh})
	f2 := f1.Clone()
	for _, l := range f2.Layers {
		l.W.Zero()
		clear(l.B)
	}
	in := spec.Inputs{Box: spec.Box{Lo: []float64{-1, -2, 0, 1}, Hi: []float64{1, 0, 0.5, 3}}}
	opts := DefaultOptions()
	opts.MaxCorners = 0
	r, err := MaxError(context.Background(), f1, f2, in, spec.Quantity{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The true maximum of |f1| over the box, by a fine grid in 4-D.
	best := 0.0
	x := make([]float64, 4)
	const g = 21
	for a := range g * g * g * g {
		k := a
		for i := range 4 {
			x[i] = in.Box.Lo[i] + (in.Box.Hi[i]-in.Box.Lo[i])*float64(k%g)/(g-1)
			k /= g
		}
		y, _ := f1.Eval(x)
		best = max(best, math.Abs(y[0]))
	}
	if r.Error < best*(1-1e-9) {
		t.Errorf("found %v, grid maximum %v", r.Error, best)
	}
}

func TestErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 0))
	f := boundstest.Network(rng, []int{2, 3, 1}, 1)
	g := boundstest.Network(rng, []int{3, 3, 1}, 1)
	h := boundstest.Network(rng, []int{2, 3, 2}, 1)
	in := spec.Inputs{Box: spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}}
	ctx := context.Background()
	bad := func(mod func(*Options)) Options { o := DefaultOptions(); mod(&o); return o }
	tests := []struct {
		name   string
		f1, f2 *nn.Network
		in     spec.Inputs
		q      spec.Quantity
		opts   Options
		want   error
	}{
		{"nil network", nil, f, in, spec.Quantity{}, DefaultOptions(), nn.ErrDimension},
		{"input size", f, g, in, spec.Quantity{}, DefaultOptions(), nn.ErrDimension},
		{"output sizes", f, h, in, spec.Quantity{}, DefaultOptions(), nn.ErrDimension},
		{"C length", f, f, in, spec.Quantity{C: []float64{1, 2}}, DefaultOptions(), spec.ErrQuantity},
		{"C not finite", f, f, in, spec.Quantity{C: []float64{math.NaN()}}, DefaultOptions(), spec.ErrQuantity},
		{"norm", f, f, in, spec.Quantity{Norm: 5}, DefaultOptions(), spec.ErrQuantity},
		{"samples", f, f, in, spec.Quantity{}, bad(func(o *Options) { o.Samples = -1 }), ErrOptions},
		{"restarts", f, f, in, spec.Quantity{}, bad(func(o *Options) { o.Restarts = -1 }), ErrOptions},
		{"iters", f, f, in, spec.Quantity{}, bad(func(o *Options) { o.Iters = -1 }), ErrOptions},
		{"grid", f, f, in, spec.Quantity{}, bad(func(o *Options) { o.Grid = -2 }), ErrOptions},
		{"time limit", f, f, in, spec.Quantity{}, bad(func(o *Options) { o.TimeLimit = -1 }), ErrOptions},
		{"zoom", f, f, in, spec.Quantity{}, bad(func(o *Options) { o.ZoomSamples = -1 }), ErrOptions},
		{"max corners", f, f, in, spec.Quantity{}, bad(func(o *Options) { o.MaxCorners = -1 }), ErrOptions},
		{"max pieces", f, f, in, spec.Quantity{}, bad(func(o *Options) { o.MaxPieces = -1 }), ErrOptions},
		{"box", f, f, spec.Inputs{Box: spec.Box{Lo: []float64{1, 1}, Hi: []float64{0, 0}}}, spec.Quantity{}, DefaultOptions(), spec.ErrBox},
		{"pairing", f, f, spec.Inputs{Box: in.Box, Pairing: 7}, spec.Quantity{}, DefaultOptions(), spec.ErrInputs},
	}
	for _, tc := range tests {
		if _, err := MaxError(ctx, tc.f1, tc.f2, tc.in, tc.q, tc.opts); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestCancelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 0))
	f := boundstest.Network(rng, []int{3, 8, 1}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := spec.Inputs{Box: spec.Box{Lo: []float64{-1, -1, -1}, Hi: []float64{1, 1, 1}}}
	r, err := MaxError(ctx, f, boundstest.Perturb(rng, f, 0.1), in, spec.Quantity{}, DefaultOptions())
	if !errors.Is(err, context.Canceled) || r == nil {
		t.Fatalf("got %v, %v; want a result and context.Canceled", r, err)
	}
}

// TestPatternCoordsCapsWork checks that Options.PatternCoords bounds the
// pattern search's evaluations whatever the dimension: on 200 inputs an
// uncapped pattern search tries every coordinate in each iteration (at
// least Iters d evaluations), a capped one at most 2 Iters PatternCoords.
func TestPatternCoordsCapsWork(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 0))
	const d, iters, coords = 200, 3, 2
	f1, f2, in := wideInstance(rng, d)
	opts := DefaultOptions()
	opts.Samples, opts.MaxCorners, opts.Restarts, opts.Iters = 10, 0, 1, iters
	opts.ZoomStarts, opts.ZoomRounds, opts.ZoomSamples = 0, 0, 0
	run := func(c int) *Result {
		o := opts
		o.PatternCoords = c
		r, err := MaxError(context.Background(), f1, f2, in, spec.Quantity{}, o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	capped, uncapped := run(coords), run(0)
	if saved := uncapped.Evaluations - capped.Evaluations; saved < iters*d-2*iters*coords {
		t.Errorf("capped search made %d evaluations, uncapped %d: want at least %d fewer",
			capped.Evaluations, uncapped.Evaluations, iters*d-2*iters*coords)
	}
}

// TestMaxEvalsCapsWork checks that Options.MaxEvals stops the search after
// at most that many evaluations, and that the same budget gives the same
// result.
func TestMaxEvalsCapsWork(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 0))
	const d, budget = 20, 300
	f1, f2, in := wideInstance(rng, d)
	opts := DefaultOptions()
	opts.MaxEvals = budget
	var first *Result
	for range 2 {
		r, err := MaxError(context.Background(), f1, f2, in, spec.Quantity{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if r.Evaluations > budget {
			t.Errorf("%d evaluations, want at most %d", r.Evaluations, budget)
		}
		if first != nil && (r.Error != first.Error || r.Evaluations != first.Evaluations) {
			t.Errorf("second run: error %v in %d evaluations, first %v in %d", r.Error, r.Evaluations, first.Error, first.Evaluations)
		}
		first = r
	}
}

// TestMaxEvalsExact checks that no phase goes past Options.MaxEvals, for
// every budget up to past the phases before the local searches, with and
// without sign ascent, on a float pair and on an int8 copy (whose
// annealing phase places its points by gradients, counted as
// evaluations).
func TestMaxEvalsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	const d = 6
	f1, f2, in := wideInstance(rng, d)
	xs := make([][]float64, 50)
	for i := range xs {
		xs[i] = make([]float64, d)
		for j := range xs[i] {
			xs[i][j] = 2*rng.Float64() - 1
		}
	}
	r, err := quantise.SampleRanges(f1, xs)
	if err != nil {
		t.Fatal(err)
	}
	fq, err := quantise.Int8(f1, r, quantise.Int8Options{Bits: 8})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*nn.Network{f2, fq} {
		for _, sign := range []bool{false, true} {
			for budget := 1; budget <= 400; budget += 1 + budget/8 {
				opts := DefaultOptions()
				opts.MaxEvals, opts.SignAscent = budget, sign
				opts.Samples, opts.AnnealEvals = 20, 60
				res, err := MaxError(context.Background(), f1, g, in, spec.Quantity{}, opts)
				if err != nil {
					t.Fatal(err)
				}
				if res.Evaluations > budget {
					t.Errorf("quantised %v, sign ascent %v: %d evaluations, budget %d", g.Quantised(), sign, res.Evaluations, budget)
				}
			}
		}
	}
}

// wideInstance returns a random d-8-1 network, its float16 copy and the
// box [-1, 1]^d with the same input for both.
func wideInstance(rng *rand.Rand, d int) (f1, f2 *nn.Network, in spec.Inputs) {
	f1 = boundstest.Network(rng, []int{d, 8, 1}, 1)
	in = spec.Inputs{Box: spec.Box{Lo: make([]float64, d), Hi: make([]float64, d)}, Pairing: spec.SameInput}
	for i := range d {
		in.Box.Lo[i], in.Box.Hi[i] = -1, 1
	}
	return f1, boundstest.Float16(f1), in
}
