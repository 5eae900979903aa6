package experiment

import (
	"context"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// allocationCase is a random 2-12-12-1 ReLU network over [-1, 1]^2 with
// the options of a quick, machine-independent certification.
func allocationCase(target float64) (*nn.Network, spec.Box, *Allocation) {
	f1 := randnet.Paper(7, 2, 2, 12, 1)
	box := spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}
	o := certjob.Default()
	o.Pairing = spec.SameInput
	o.Refine.TimeBudget = 0
	o.Refine.MaxPieces = 4
	o.Samples = 200
	o.SearchWork /= 100 // the search for the error found is most of the time otherwise
	return f1, box, &Allocation{Widths: []int{2, 3, 4, 5, 6, 7, 8, 9, 10}, Target: target, Opts: o, Jobs: 2, Starts: 2}
}

func identity(q *nn.Network) (*nn.Network, error) { return q, nil }

// TestAllocationHolds allocates a small network's widths and checks the
// result without trusting it: the copy's parameters lie on the grids and
// in the ranges the table claims, the totals add up and are at most the
// single width's, a fresh certification of the copy meets the target,
// and no sampled input or box corner exceeds the bound.
func TestAllocationHolds(t *testing.T) {
	f1, box, a := allocationCase(0.5)
	r, err := a.Run(context.Background(), f1, f1, identity, box, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Met() {
		t.Fatalf("no allocation met %v: sweep %+v", a.Target, r.Sweep)
	}
	if r.TotalBits > r.SingleBits || r.TotalBits != TotalBits(r.Layers) {
		t.Errorf("total %d, single %d, layers add to %d", r.TotalBits, r.SingleBits, TotalBits(r.Layers))
	}
	if len(r.Steps) == 0 || r.TotalBits >= r.SingleBits {
		t.Logf("no layer could go lower than the single FB %d", r.Single.FracBits)
	}
	for k, l := range r.Layers {
		q := r.Net.Layers[k]
		vals := append(append([]float64(nil), q.W.RawMatrix().Data...), q.B...)
		limit := math.Ldexp(1, l.IntBits) - math.Ldexp(1, -l.FracBits)
		for _, v := range vals {
			if s := math.Ldexp(v, l.FracBits); s != math.Trunc(s) || math.Abs(v) > limit {
				t.Fatalf("layer %d: %v is not in <%d,%d>", k, v, l.IntBits, l.FracBits)
			}
		}
		if want := len(vals) * (1 + l.IntBits + l.FracBits); l.Bits != want {
			t.Errorf("layer %d: %d bits, want %d", k, l.Bits, want)
		}
	}
	checkAllocationSound(t, a, f1, r, box, 1, 2)
}

// TestAllocationDeterministic: two runs, at one job and at two, choose
// the same layers by the same steps.
func TestAllocationDeterministic(t *testing.T) {
	f1, box, a := allocationCase(0.5)
	r1, err := a.Run(context.Background(), f1, f1, identity, box, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a.Jobs = 1
	r2, err := a.Run(context.Background(), f1, f1, identity, box, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r1.Layers, r2.Layers) || !reflect.DeepEqual(r1.Steps, r2.Steps) {
		t.Errorf("runs differ:\n%+v %+v\n%+v %+v", r1.Layers, r1.Steps, r2.Layers, r2.Steps)
	}
}

// TestAllocationNotMet: a target no width tried meets is a result
// without an allocation, not an error.
func TestAllocationNotMet(t *testing.T) {
	f1, box, a := allocationCase(1e-9)
	a.Widths = []int{2, 3}
	r, err := a.Run(context.Background(), f1, f1, identity, box, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if r.Met() || r.Net != nil || r.Single.FracBits != 0 || len(r.Sweep) != 2 {
		t.Errorf("result %+v", r)
	}
}

// TestLayerWidths: the integer bits are the fewest holding the layer's
// largest magnitude at its FB.
func TestLayerWidths(t *testing.T) {
	f1 := randnet.Paper(1, 1, 1, 2, 1)
	q, err := quantise.Network(f1, quantise.Options{Layers: []quantise.LayerFormats{
		{Weights: quantise.Format{FracBits: 3}, Biases: quantise.Format{FracBits: 3}},
		{Weights: quantise.Format{FracBits: 2}, Biases: quantise.Format{FracBits: 2}}}})
	if err != nil {
		t.Fatal(err)
	}
	q.Layers[0].W.Set(0, 0, 1.875) // 2^1 - 2^-3: one integer bit at FB 3
	q.Layers[0].W.Set(1, 0, 0)
	q.Layers[0].B = []float64{0.5, -0.25}
	q.Layers[1].W.Set(0, 0, -2) // more than 2^1 - 2^-2: two integer bits
	q.Layers[1].W.Set(0, 1, 0)
	q.Layers[1].B = []float64{0}
	got := LayerWidths(q, []int{3, 2})
	want := []LayerWidth{{0, 2, 2, 1, 3, 0, 4 * 5}, {1, 2, 1, 2, 2, 0, 3 * 5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("LayerWidths = %+v, want %+v", got, want)
	}
}

// TestAllocationInt8 allocates int8 and int4 weights per layer and
// checks the result without trusting it: every layer's weights are
// integers of its width times their scale, the bits add up and are
// fewer than the single width's, a fresh certification of the copy
// meets the target, and no sampled input or box corner exceeds the
// bound. On this network int8 everywhere bounds the error by 1.19, int4
// by 2.48: a target between them needs a mix.
func TestAllocationInt8(t *testing.T) {
	f1, box, a := allocationCase(1.7)
	a.Widths, a.Int8 = []int{4, 8}, &quantise.Int8Options{Bits: 8, PerChannel: true}
	r, err := a.Run(context.Background(), f1, f1, identity, box, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Met() || r.Single.FracBits != 8 || r.Scheme == "" {
		t.Fatalf("single width %d, scheme %q, met %v: sweep %+v", r.Single.FracBits, r.Scheme, r.Met(), r.Sweep)
	}
	if r.TotalBits >= r.SingleBits || r.TotalBits != TotalBits(r.Layers) {
		t.Errorf("total %d, single %d, layers add to %d", r.TotalBits, r.SingleBits, TotalBits(r.Layers))
	}
	for k, l := range r.Layers {
		q := r.Net.Layers[k]
		half := float64(int(1)<<(l.WeightBits-1) - 1)
		rows, cols := q.W.Dims()
		for i := range rows {
			s, _ := q.Int.Weight.At(i)
			for j := range cols {
				if v := q.W.At(i, j) / s; v != math.Round(v) || math.Abs(v) > half {
					t.Fatalf("layer %d: weight %v is %v steps, not an int%d", k, q.W.At(i, j), v, l.WeightBits)
				}
			}
		}
		if want := rows*cols*l.WeightBits + 32*len(q.B); l.Bits != want {
			t.Errorf("layer %d: %d bits, want %d", k, l.Bits, want)
		}
	}
	checkAllocationSound(t, a, f1, r, box, 3, 4)
}

// checkAllocationSound certifies r's copy of f1 again with a's options,
// within a's target, and checks r's bound at the corners of box, the
// square [-1, 1]^2, and at 2,000 random inputs drawn with the seeds s1,
// s2.
func checkAllocationSound(t *testing.T, a *Allocation, f1 *nn.Network, r *AllocationResult, box spec.Box, s1, s2 uint64) {
	t.Helper()
	c, err := a.Opts.Bound(context.Background(), f1, r.Net, box)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Certified() || c.Bound > a.Target {
		t.Errorf("rerun: certified %v, bound %v > target %v", c.Certified(), c.Bound, a.Target)
	}
	rng := rand.New(rand.NewPCG(s1, s2))
	xs := [][]float64{{-1, -1}, {-1, 1}, {1, -1}, {1, 1}}
	for range 2000 {
		xs = append(xs, []float64{2*rng.Float64() - 1, 2*rng.Float64() - 1})
	}
	for _, x := range xs {
		y1, err1 := f1.Eval(x)
		y2, err2 := r.Net.Eval(x)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if d := math.Abs(y1[0] - y2[0]); d > float64(r.Bound) {
			t.Fatalf("at %v the error %v exceeds the bound %v", x, d, r.Bound)
		}
	}
}
