package soundness_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/jsonnet"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// Reproducers of the violations the campaign found. Each certifies one
// instance and asserts, in high precision, that the error at the
// violating input is within the certified bound; each is skipped until
// its bug is fixed.

func readNet(t *testing.T, name string) *nn.Network {
	t.Helper()
	f, err := jsonnet.Read("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// checkRepro certifies f1, f2 on box with opts and checks the error at x1
// (x2 paired by opts) against the certified bound in high precision. A
// reproducer that certifies nothing checks nothing, so it fails.
func checkRepro(t *testing.T, f1, f2 *nn.Network, box spec.Box, opts certjob.Job, x1 []float64) {
	t.Helper()
	c, err := opts.Bound(context.Background(), f1, f2, box)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Certified() {
		t.Fatalf("not certified (%v: %s): no claim to check", c.Status, c.Reason)
	}
	in := &instance{f1: f1, f2: f2, box: box, opts: opts}
	p := newProblem(in)
	z := x1
	if opts.Pairing == spec.Independent {
		z = append(append([]float64(nil), x1...), x1...)
	}
	ex, e := p.exactCheck(&target{name: "root", lo: p.lo, hi: p.hi, bound: c.Bound}, z)
	if ex > 0 {
		_, x2 := p.split(z)
		t.Errorf("certified bound %.17g, but the error at x1 = %v, x2 = %v is %.17g (source %v, observed %v)",
			c.Bound, x1, x2, e, c.Source, c.ObservedError)
	}
	if c.ObservedError > c.Bound && !math.IsNaN(c.ObservedError) {
		t.Errorf("the certificate's own observed error %v exceeds its bound %v", c.ObservedError, c.Bound)
	}
}

// TestReproSaturatingInput: with a saturating input quantiser (x2 =
// clamp(round(x1)) by spec.Inputs.X2 and search), certify described x2
// as round(x1) without the clamp: region cells (certify/region.go cells,
// syncQuant) used quantise.Format.Round, and qc.QuantError / the paper
// set's |x2 - x1| <= 2^-FB ignore saturation. Identity networks, box
// [-8, 8], <1,2> saturating at 1.75: certified 0.25, actual error 6.25 at
// x1 = -8 (x2 = -1.75). certify now rejects a quantiser that clamps inside
// the box (ErrOptions) and certifies one that does not as the plain one.
func TestReproSaturatingInput(t *testing.T) {
	id := readNet(t, "identity.json")
	for _, qcs := range []certify.QCSet{certify.QCDefault, certify.QCPaper} {
		o := certjob.Default()
		o.QC, o.Pairing = qcs, spec.QuantisedInput
		o.Quant = quantise.Format{IntBits: 1, FracBits: 2, Saturate: true}
		box := spec.Box{Lo: []float64{-8}, Hi: []float64{8}}
		if _, err := o.Bound(context.Background(), id, id, box); !errors.Is(err, certify.ErrOptions) {
			t.Errorf("%v: box [-8, 8] clamped at 1.75: error %v, want ErrOptions", qcs, err)
		}
		// Within the range the clamp never acts; 1.99 truncates to 1.75.
		box = spec.Box{Lo: []float64{-1.99}, Hi: []float64{1.99}}
		checkRepro(t, id, id, box, o, []float64{-1.99})
	}
}

// TestReproMergeRounding: the default QC set merges a neuron of network 2
// into network 1's (qc.Config.MergeIdentical) when their pre-activation
// Forms are equal in float64 (values and radii), but equal rounded
// coefficients do not make the exact pre-activations equal: here the
// coefficient of x is 1 + 1e-20 in f1 and 1 + 2^-54 in f2 (two stable
// ReLUs feeding one unstable neuron with weights [1, delta]); both round
// to 1 with the same radius, the neurons share a coordinate, and the
// difference of 2^-54 x is lost. Same input, box [0.5, 1]: certified
// 2.5e-20, actual error 5.55e-17 at x = 1 (also nnbound compare
// merge_f1.json merge_f2.json --pairing same --box 0.5:1 prints ratio
// 0.000).
func TestReproMergeRounding(t *testing.T) {
	f1, f2 := readNet(t, "merge_f1.json"), readNet(t, "merge_f2.json")
	o := certjob.Default()
	o.Pairing = spec.SameInput
	checkRepro(t, f1, f2, spec.Box{Lo: []float64{0.5}, Hi: []float64{1}}, o, []float64{1})
}

// TestReproCLength: certify.Bound panics (index out of range in buildLMI)
// when Options.C is not nil and its length is not the number of outputs:
// Options.Validate checks C's values but not its length, and C = []float64{}
// panics too. User input must give an error.
func TestReproCLength(t *testing.T) {
	f := readNet(t, "merge_f1.json")
	box := spec.Box{Lo: []float64{-1}, Hi: []float64{1}}
	for _, c := range [][]float64{{1, 2}, {}} {
		o := certjob.Default()
		o.C = c
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("C = %v: panic: %v", c, r)
				}
			}()
			if _, err := o.Bound(context.Background(), f, f, box); err == nil {
				t.Errorf("C = %v for 1 output: no error", c)
			}
		}()
	}
}

// TestReproZeroGammas: when the root SDP and the root interval bound both
// fail (here the output enclosure overflows, 2e154 squared) and the split
// pieces certify, the certificate is Certified with Gammas all 0, which
// Certificate documents as verified coefficients of ||f1 - f2||^2 <=
// gamma + ... for every input pair; the error is 1e154 at x = 2e154.
// (The bound itself, 1.0156e154, holds.) Halfrelu is x -> relu(x) -
// relu(x)/2, compared with the zero network, same input, interval bounds.
func TestReproZeroGammas(t *testing.T) {
	f1, f2 := readNet(t, "halfrelu.json"), readNet(t, "zero.json")
	box := spec.Box{Lo: []float64{-2e154}, Hi: []float64{2e154}}
	o := certjob.Default()
	o.Pairing, o.Bounds = spec.SameInput, bounds.MethodInterval
	c, err := o.Bound(context.Background(), f1, f2, box)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Certified() {
		t.Skipf("not certified (%s)", c.Reason)
	}
	x := []float64{2e154}
	y1, _ := f1.Eval(x)
	y2, _ := f2.Eval(x)
	e := math.Abs(y1[0] - y2[0])
	if rhs := gammaRHS(c.Gammas, x, x); !(e <= math.Sqrt(rhs)) {
		t.Errorf("gammas %+v give sqrt(rhs) = %v at x = %v, where the error is %v (%s)", c.Gammas, math.Sqrt(rhs), x, e, c.Reason)
	}
}

// TestReproSearchHugeBox: on the box [-MaxFloat64, MaxFloat64],
// search.MaxError returns X1 = +Inf (outside the box: a midpoint lo +
// (hi - lo)/2 overflows) with Error +Inf and Exact set, and on the same
// input it reports +Inf for an error of 1.8e308 (the 2-norm squares the
// difference). nnbound compare --json then fails with "json: unsupported
// value: +Inf" and prints nothing. Vee is x -> relu(x) + relu(0.5 - x).
func TestReproSearchHugeBox(t *testing.T) {
	vee, id := readNet(t, "vee.json"), readNet(t, "identity.json")
	box := spec.Box{Lo: []float64{-math.MaxFloat64}, Hi: []float64{math.MaxFloat64}}
	for _, c := range []struct {
		f1, f2  *nn.Network
		pairing spec.Pairing
	}{{vee, vee, spec.Independent}, {readNet(t, "zero.json"), id, spec.SameInput}} {
		in := spec.Inputs{Box: box, Pairing: c.pairing}
		r, err := search.MaxError(context.Background(), c.f1, c.f2, in, spec.Quantity{}, search.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		x2 := r.X2
		if !box.Contains(r.X1) || !box.Contains(x2) {
			t.Errorf("%v: the worst pair x1 %v, x2 %v is outside the box", c.pairing, r.X1, x2)
		}
		if math.IsInf(r.Error, 0) || math.IsNaN(r.Error) {
			t.Errorf("%v: error %v (exact %v) for networks with finite outputs", c.pairing, r.Error, r.Exact)
		}
	}
}
