package experiment

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// TestCertCurveSound certifies the demo's instance (a random 1-10-10-1
// ReLU network against its copy quantised to FB = 2, box [-1, 1]) and
// variants, and checks on a fine grid that the figure's bound is at least
// the error everywhere and that it follows the error instead of staying
// at the bound over the box.
func TestCertCurveSound(t *testing.T) {
	cases := []struct {
		name     string
		fb       int
		pairing  spec.Pairing
		rounding quantise.Rounding
		lo, hi   float64
		want     string // the legend entry of the bound
	}{
		{"demo", 2, spec.QuantisedInput, quantise.Trunc, -1, 1, "certified bound at x or on its quantisation cell"},
		{"nearest FB 3", 3, spec.QuantisedInput, quantise.Nearest, -0.9, 0.7, "certified bound at x or on its quantisation cell"},
		{"same input", 2, spec.SameInput, quantise.Trunc, -1, 1, "certified bound at x or on its slice of the input (128 slices)"},
	}
	for _, tc := range cases {
		f1 := randnet.Paper(1, 1, 2, 10, 1)
		qo := quantise.DefaultOptions()
		qo.Weights.FracBits, qo.Biases.FracBits = tc.fb, tc.fb
		f2, err := quantise.Network(f1, qo)
		if err != nil {
			t.Fatal(err)
		}
		box := spec.Box{Lo: []float64{tc.lo}, Hi: []float64{tc.hi}}
		opts := certjob.Default()
		opts.Pairing, opts.Quant = tc.pairing, quantise.Format{FracBits: tc.fb, Rounding: tc.rounding}
		c, err := opts.Bound(context.Background(), f1, f2, box)
		if err != nil || !c.Certified() {
			t.Fatalf("%s: certify: %v, %+v", tc.name, err, c)
		}
		in := spec.Inputs{Box: box, Pairing: opts.Pairing, Quant: opts.Quant}
		cv, err := Curve(context.Background(), f1, f2, box, opts, c, CurveInputs(tc.lo, tc.hi, 20001, in))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if cv.BoundName != tc.want {
			t.Errorf("%s: legend %q, want %q", tc.name, cv.BoundName, tc.want)
		}
		for i, x := range cv.X {
			if !(cv.Bound[i] >= cv.Error[i]) {
				t.Fatalf("%s: at x = %v the bound %v is below the error %v", tc.name, x, cv.Bound[i], cv.Error[i])
			}
			if cv.Bound[i] > c.Bound {
				t.Fatalf("%s: at x = %v the bound %v is above the bound over the box %v", tc.name, x, cv.Bound[i], c.Bound)
			}
		}
		if lo := slices.Min(cv.Bound); !(lo < c.Bound/2) {
			t.Errorf("%s: the bound at x stays within %v of the bound over the box %v", tc.name, lo, c.Bound)
		}
	}
}

// TestQuantCells checks that the cells cover the interval without gaps or
// overlaps, that the quantiser is constant on each and differs between
// neighbours.
func TestQuantCells(t *testing.T) {
	cases := []struct {
		lo, hi float64
		fb     int
	}{
		{-1, 1, 2}, {-0.3, 0.77, 3}, {0.1, 0.1, 2}, {0.25, 0.25, 2}, {-2, -0.5, 1}, {0, 3, 0}, {-0.5, 0.5, 7},
	}
	for _, tc := range cases {
		for _, r := range []quantise.Rounding{quantise.Trunc, quantise.Nearest, quantise.Floor} {
			f := quantise.Format{FracBits: tc.fb, Rounding: r}
			in := spec.Inputs{Pairing: spec.QuantisedInput, Quant: f}
			s, ok := quantCells(tc.lo, tc.hi, in)
			if !ok || !s.Cells {
				t.Fatalf("[%v, %v] %v: no cells", tc.lo, tc.hi, f)
			}
			q := func(x float64) float64 { v, _ := f.Quantise(x); return v }
			if s.Lo[0] != tc.lo || s.Hi[s.Len()-1] != tc.hi {
				t.Errorf("[%v, %v] %v: cells span [%v, %v]", tc.lo, tc.hi, f, s.Lo[0], s.Hi[s.Len()-1])
			}
			for k := range s.Len() {
				if s.Lo[k] > s.Hi[k] || q(s.Lo[k]) != q(s.Hi[k]) {
					t.Errorf("[%v, %v] %v: cell [%v, %v] has q %v and %v", tc.lo, tc.hi, f, s.Lo[k], s.Hi[k], q(s.Lo[k]), q(s.Hi[k]))
				}
				if k > 0 && (math.Nextafter(s.Hi[k-1], math.Inf(1)) != s.Lo[k] || q(s.Hi[k-1]) == q(s.Lo[k])) {
					t.Errorf("[%v, %v] %v: cells end at %v and start at %v", tc.lo, tc.hi, f, s.Hi[k-1], s.Lo[k])
				}
			}
		}
	}
	if _, ok := quantCells(-1, 1, spec.Inputs{Pairing: spec.QuantisedInput, Quant: quantise.Format{FracBits: 8}}); ok {
		t.Errorf("512 cells: want too many")
	}
}

// TestCurveFixedCells checks that the figure's sub-boxes depend on the
// input set alone: every quantisation cell up to maxFigureCells, else
// figureSlices slices, and the same bounds on a second run.
func TestCurveFixedCells(t *testing.T) {
	f1 := randnet.Paper(1, 1, 2, 10, 1)
	qo := quantise.DefaultOptions()
	qo.Weights.FracBits, qo.Biases.FracBits = 5, 5
	f2, err := quantise.Network(f1, qo)
	if err != nil {
		t.Fatal(err)
	}
	opts := certjob.Default()
	opts.Pairing, opts.Quant = spec.QuantisedInput, quantise.Format{FracBits: 5}
	in := spec.Inputs{Box: spec.Box{Lo: []float64{-1}, Hi: []float64{1}}, Pairing: opts.Pairing, Quant: opts.Quant}
	s := figureSubBoxes(-1, 1, in)
	if !s.Cells || s.Len() != 65 {
		t.Fatalf("%d sub-boxes (cells %v), want the 65 cells of FB = 5 truncation toward zero on [-1, 1]", s.Len(), s.Cells)
	}
	xs := CurveInputs(-1, 1, 401, in)
	a, err := subBoxBounds(context.Background(), f1, f2, opts, s, xs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := subBoxBounds(context.Background(), f1, f2, opts, s, xs)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range xs {
		if math.IsInf(a[i], 0) || a[i] != b[i] {
			t.Errorf("x = %v: bounds %v and %v", x, a[i], b[i])
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := subBoxBounds(ctx, f1, f2, opts, s, xs); err == nil {
		t.Error("cancelled: no error")
	}
	if s := figureSubBoxes(-1, 1, spec.Inputs{Pairing: spec.SameInput}); s.Cells || s.Len() != figureSlices {
		t.Errorf("same input: %d sub-boxes (cells %v), want %d slices", s.Len(), s.Cells, figureSlices)
	}
}
