package certify

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// gammaValue returns the right-hand side of the gamma inequality at x1, x2:
//
//	Gamma + GammaX1 ||x1||^2 + GammaX2 ||x2||^2 + GammaX ||x1 - x2||^2.
func gammaValue(g Gammas, x1, x2 []float64) float64 {
	v := g.Gamma
	for j := range x1 {
		v += g.GammaX1*x1[j]*x1[j] + g.GammaX2*x2[j]*x2[j] + g.GammaX*(x1[j]-x2[j])*(x1[j]-x2[j])
	}
	return v
}

// TestSDPGammasKept checks that the SDP's gammas survive when bound
// propagation gives the bound (a random 1-10-1 network of the paper's kind
// against its FB = 2 copy, where the enclosure beats the SDP over the box)
// and that they hold at sampled inputs, and that the SDP's right-hand side
// is below the enclosure's Bound somewhere (where x2 = x1), the point of
// keeping it.
func TestSDPGammasKept(t *testing.T) {
	solve := testSolver(t)
	f1 := randnet.Paper(1, 1, 1, 10, 1)
	qf := quantise.Format{FracBits: 2}
	qo := quantise.DefaultOptions()
	qo.Weights, qo.Biases = qf, qf
	f2, err := quantise.Network(f1, qo)
	if err != nil {
		t.Fatal(err)
	}
	o := testTask()
	o.in.Pairing, o.in.Quant = spec.QuantisedInput, qf
	o.Solve = solve
	o.Refine.TimeBudget = 0 // under a budget the SDP is skipped here (TestSDPSkipped)
	box := spec.Box{Lo: []float64{-1}, Hi: []float64{1}}
	c, err := o.bound(context.Background(), f1, f2, box)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Certified() || c.Source != MethodPropagation || math.IsInf(c.SDPBound, 1) {
		t.Fatalf("want a certificate from the enclosure with a checked SDP: certified %v, source %v, SDP bound %v", c.Certified(), c.Source, c.SDPBound)
	}
	if c.Gammas != (Gammas{Gamma: c.Gamma}) {
		t.Errorf("Gammas = %+v, want the enclosure's (Bound^2, 0, 0, 0)", c.Gammas)
	}
	if c.SDPGammas == (Gammas{}) || c.SDPGammas == c.Gammas {
		t.Fatalf("SDPGammas = %+v, want the SDP's own", c.SDPGammas)
	}
	in := spec.Inputs{Box: box, Pairing: o.in.Pairing, Quant: o.in.Quant}
	below := 0
	for k := range 401 {
		x1 := []float64{-1 + float64(k)/200}
		x2 := in.X2(x1)
		rhs := gammaValue(c.SDPGammas, x1, x2)
		if e := errorAt(t, f1, f2, x1, x2, o.q); e*e > rhs*(1+1e-9)+1e-12 {
			t.Fatalf("at x1 = %v: error^2 %v exceeds the SDP gammas' %v", x1, e*e, rhs)
		}
		if math.Sqrt(rhs) < c.Bound {
			below++
		}
	}
	if below == 0 {
		t.Errorf("the SDP gammas' bound is nowhere below Bound %v: %+v, SDP bound %v", c.Bound, c.SDPGammas, c.SDPBound)
	}
}

// TestSDPGammasHold samples the instances of the soundness campaign and
// checks the SDP's gammas wherever an SDP passed the check, and that they
// are zero where none did.
func TestSDPGammasHold(t *testing.T) {
	solve := testSolver(t)
	for i := range 10 {
		sc := newSoundCase(t, i)
		sc.opts.Solve = solve
		t.Run(sc.name, func(t *testing.T) {
			c, err := sc.opts.bound(context.Background(), sc.f1, sc.f2, sc.box)
			if err != nil {
				t.Fatal(err)
			}
			if math.IsInf(c.SDPBound, 1) || math.IsNaN(c.SDPBound) {
				if c.SDPGammas != (Gammas{}) {
					t.Fatalf("SDPGammas = %+v without a checked SDP", c.SDPGammas)
				}
				return
			}
			if sc.opts.q.Norm != spec.Norm2 {
				return // the inf-norm's gammas bound one output only
			}
			root := rootRegion(sc.box, &sc.opts)
			rng := rand.New(rand.NewPCG(uint64(i), 5))
			n := sc.box.Dim()
			for range 500 {
				x1, x2 := make([]float64, n), make([]float64, n)
				for j := range x1 {
					x1[j] = sc.box.Lo[j] + rng.Float64()*(sc.box.Hi[j]-sc.box.Lo[j])
					x2[j] = sc.box.Lo[j] + rng.Float64()*(sc.box.Hi[j]-sc.box.Lo[j])
				}
				if root.Pairing != spec.Independent {
					x2 = sc.opts.in.X2(x1)
				}
				rhs := gammaValue(c.SDPGammas, x1, x2)
				if e := errorAt(t, sc.f1, sc.f2, x1, x2, sc.opts.q); e*e > rhs*(1+1e-9)+1e-12 {
					t.Fatalf("at x1 %v x2 %v: error^2 %v exceeds the SDP gammas' %v", x1, x2, e*e, rhs)
				}
			}
		})
	}
}
