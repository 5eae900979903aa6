package certify

import (
	"os"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// TestPointWidthCoordinate: a box with a coordinate of zero width (ACAS Xu
// property 4 fixes one input) once gave check_failed "multiplier of
// input_box x1[2] is +Inf". Every pairing and QC set must certify such a
// box, with a bound at least the observed error.
func TestPointWidthCoordinate(t *testing.T) {
	box := spec.Box{Lo: []float64{-1, -0.5, 0.25}, Hi: []float64{1, 0.5, 0.25}}
	f1 := randnet.Paper(7, 3, 2, 6, 1)
	q := quantise.Format{FracBits: 3}
	fq, err := quantise.Network(f1, quantise.Options{Weights: q, Biases: q})
	if err != nil {
		t.Fatal(err)
	}
	for _, qcs := range []QCSet{QCDefault, QCPaper} {
		for _, p := range []spec.Pairing{spec.SameInput, spec.Independent, spec.QuantisedInput} {
			o := testTask()
			o.QC, o.in.Pairing, o.in.Quant = qcs, p, q
			o.Refine.MaxPieces, o.Refine.TimeBudget, o.Samples = 5, 0, 200
			f2 := fq
			if p == spec.Independent {
				f2 = f1
			}
			c, err := o.bound(t.Context(), f1, f2, box)
			if err != nil {
				t.Fatal(err)
			}
			if !c.Certified() || c.Bound < c.ObservedError {
				t.Errorf("%v, %v: certified %v (%v: %s), bound %v, observed %v", qcs, p, c.Certified(), c.Status, c.Reason, c.Bound, c.ObservedError)
			}
		}
	}
}

// TestACASProperty4FixedInput certifies an ACAS Xu property 4 instance
// (two inputs of zero width) against its float16 copy on the target
// output, with bound propagation's enclosure as the only alternative:
// the SDP itself must succeed. It takes about 15 s an instance, so it
// runs only with NNBOUND_LONG=1, on every seventh instance.
func TestACASProperty4FixedInput(t *testing.T) {
	if os.Getenv("NNBOUND_LONG") != "1" {
		t.Skip("ACAS Xu SDPs take about 15 s each (NNBOUND_LONG=1)")
	}
	for k, inst := range boundstest.ACASInstances(t) {
		if inst.Prop != "4" || k%7 != 0 {
			continue
		}
		f, g := inst.Networks(t)
		o := testTask()
		o.in.Pairing, o.q.C = spec.SameInput, make([]float64, f.OutputSize())
		o.q.C[inst.Target] = 1
		o.Refine.MaxPieces, o.Samples = 1, 200
		c, err := o.bound(t.Context(), f, g, spec.Box{Lo: inst.Lo, Hi: inst.Hi})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s/%s: bound %.4g (sdp %.4g, interval %.4g), observed %.4g, %v", inst.Prop, inst.Net, c.Bound,
			c.SDPBound, c.IntervalBound, c.ObservedError, c.Time)
		if !c.Certified() || c.Fallbacks > 0 || strings.Contains(c.Note, "Inf") {
			t.Errorf("%s/%s: certified %v, fallbacks %d (%v: %s)", inst.Prop, inst.Net, c.Certified(), c.Fallbacks, c.Status, c.Note)
		}
	}
}
