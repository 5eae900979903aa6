package certify

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/prune"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// soundCase is one random instance of the soundness campaign.
type soundCase struct {
	name   string
	f1, f2 *nn.Network
	box    spec.Box
	opts   task
}

// kinds of instance, cycled through by the campaign.
var soundKinds = []string{"similarity", "self", "quantised", "pruned", "float16"}

// newSoundCase returns instance i of the campaign: the kind, the depth
// l = 1..3, the input size n_x = 1..3 and FB = 1..4 cycle with i; the
// networks have hidden layers of 4..8 neurons.
func newSoundCase(t testing.TB, i int) soundCase {
	kind := soundKinds[i%len(soundKinds)]
	l := 1 + (i/len(soundKinds))%3
	nx := 1 + (i/(3*len(soundKinds)))%3
	fb := 1 + i%4
	rng := rand.New(rand.NewPCG(uint64(i), 2024))
	width := 4 + rng.IntN(5)
	f1, err := randnet.New(rng, randnet.Sizes(nx, l, width, 1+rng.IntN(2)))
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := make([]float64, nx), make([]float64, nx)
	for j := range nx {
		lo[j], hi[j] = -1+0.5*rng.Float64(), 0.25+0.75*rng.Float64()
	}
	o := testTask()
	o.Refine = Refine{MaxPieces: 7, TargetRatio: 1.02}
	o.Samples = 200
	o.Seed = uint64(i)
	var f2 *nn.Network
	switch kind {
	case "similarity":
		f2, err = randnet.New(rng, randnet.Sizes(nx, 1+rng.IntN(3), 3+rng.IntN(5), f1.OutputSize()))
		o.in.Pairing = spec.Independent
	case "self":
		f2, o.in.Pairing = f1, spec.Independent
	case "quantised":
		f := quantise.Format{FracBits: fb}
		f2, err = quantise.Network(f1, quantise.Options{Weights: f, Biases: f})
		o.in.Pairing, o.in.Quant = spec.QuantisedInput, f
	case "float16":
		// A close copy with the same input, as the ACAS Xu instances:
		// float16 weights, or a perturbation of one part in 2^8 when the
		// rounding changes nothing at this size.
		f2 = boundstest.Float16(f1)
		if i%2 == 1 {
			f2 = boundstest.Perturb(rng, f1, 1.0/256)
		}
		o.in.Pairing = spec.SameInput
	case "pruned":
		if l > 1 {
			f2, _, err = prune.Neurons(f1, prune.NeuronOptions{Count: 2, Scope: prune.Global})
		} else {
			f2, _, err = prune.Weights(f1, prune.WeightOptions{Sparsity: 0.3, Scope: prune.Global})
		}
		o.in.Pairing = spec.SameInput
	}
	if err != nil {
		t.Fatal(err)
	}
	if i%6 == 2 && kind != "float16" && (l <= 2 || os.Getenv("NNBOUND_LONG") != "") {
		o.QC = QCPaper // the authors' set too, on the smaller instances
		if kind == "pruned" {
			// The authors bound pruning with independent inputs; with the
			// same input their SDP has no strictly feasible point (a pruned
			// neuron's two coordinates are always equal).
			o.in.Pairing = spec.Independent
		}
	}
	mode := ""
	switch i % 7 {
	case 1:
		o.q.C, mode = make([]float64, f1.OutputSize()), "-out"
		o.q.C[rng.IntN(len(o.q.C))] = 1
	case 3:
		o.Method, mode = MethodPropagation, "-interval"
	case 5:
		o.q.C, mode = make([]float64, f1.OutputSize()), "-c"
		for j := range o.q.C {
			o.q.C[j] = rng.NormFloat64()
		}
	case 6:
		o.q.Norm, mode = spec.NormInf, "-inf"
		if (i/7)%2 == 1 {
			o.InfJoint, mode = true, "-infjoint"
		}
	}
	return soundCase{fmt.Sprintf("%d-%s-l%d-nx%d-fb%d-%v%s", i, kind, l, nx, fb, o.QC, mode), f1, f2,
		spec.Box{Lo: lo, Hi: hi}, o}
}

// checkSound searches actual input pairs (package search, with a seed and
// a number of random points of its own) and fails if the error of the
// worst pair, re-evaluated by errorAt, or the certificate's own observed
// error exceeds the bound or the gamma inequality.
func checkSound(t *testing.T, sc soundCase, c *Certificate, samples int) {
	t.Helper()
	if !c.Certified() {
		t.Fatalf("not certified: %v: %s", c.Status, c.Reason)
	}
	root := rootRegion(sc.box, &sc.opts)
	var ob observation
	ob.observe(context.Background(), sc.f1, sc.f2, &root, &sc.opts, testSearch(samples, uint64(samples)+77))
	x1, x2 := ob.x1, ob.x2
	e := errorAt(t, sc.f1, sc.f2, x1, x2, sc.opts.q)
	tol := 1e-9 * (1 + c.Bound)
	if e > c.Bound+tol || c.ObservedError > c.Bound+tol {
		t.Fatalf("error %v (certificate's own search %v) exceeds the certified bound %v", e, c.ObservedError, c.Bound)
	}
	// The gamma inequality at the worst pair found.
	rhs := c.Gamma
	for j := range x1 {
		rhs += c.GammaX1*x1[j]*x1[j] + c.GammaX2*x2[j]*x2[j] + c.GammaX*(x1[j]-x2[j])*(x1[j]-x2[j])
	}
	if sc.opts.q.Norm == spec.Norm2 && c.RootBound < math.Inf(1) && e*e > rhs*(1+1e-9)+1e-9 {
		t.Fatalf("||f1 - f2||^2 = %v exceeds gamma + ... = %v at x1 %v x2 %v", e*e, rhs, x1, x2)
	}
}

// testSearch returns the options of the tests' own searches for the
// observed error: the defaults with n random points and the seed.
func testSearch(n int, seed uint64) search.Options {
	so := search.DefaultOptions()
	so.Samples, so.Seed = n, seed
	return so
}

// errorAt returns the error q of f1(x1) and f2(x2), evaluated by
// nn.Network.Eval, independently of package search.
func errorAt(t *testing.T, f1, f2 *nn.Network, x1, x2 []float64, q spec.Quantity) float64 {
	t.Helper()
	y1, err := f1.Eval(x1)
	if err != nil {
		t.Fatal(err)
	}
	y2, err := f2.Eval(x2)
	if err != nil {
		t.Fatal(err)
	}
	return q.Measure(y1, y2)
}

// TestSoundness certifies random instances (similarity, self-comparison,
// quantisation FB = 1..4 with quantised input, pruning and close copies with
// the same input; l = 1..3; n_x = 1..3; the 2-norm, one output, a weighted
// output, the inf-norm, and the interval method) and checks that no
// sampled or searched input exceeds the bound. CI runs 15 instances;
// NNBOUND_LONG=1 runs 500.
func TestSoundness(t *testing.T) {
	solve := testSolver(t)
	n := 15
	if os.Getenv("NNBOUND_LONG") != "" {
		n = 500
	}
	samples := 3000
	for i := range n {
		sc := newSoundCase(t, i)
		sc.opts.Solve = solve
		t.Run(sc.name, func(t *testing.T) {
			c, err := sc.opts.bound(context.Background(), sc.f1, sc.f2, sc.box)
			if err != nil {
				t.Fatal(err)
			}
			checkSound(t, sc, c, samples)
			t.Logf("bound %.5g observed %.5g ratio %.3f solves %d margin %.2g", c.Bound, c.ObservedError, c.Ratio(), c.SDP.Solves, c.Margin)
		})
	}
}

// TestInfBoundFirstPass checks that the inf-norm certificate of chains,
// each output certified on its own after one first pass of bound
// propagation over the whole box, keeps every output's bound at most
// that pass's enclosure (Method MethodPropagation on the same box), up
// to the one-ulp steps of the enclosure's value (enclosureValue), without
// splitting and with it.
func TestInfBoundFirstPass(t *testing.T) {
	q := spec.Quantity{Norm: spec.NormInf}
	for seed := uint64(1); seed <= 3; seed++ {
		f := randnet.Paper(seed, 3, 2, 8, 3)
		qo := quantise.DefaultOptions()
		qo.Weights.FracBits, qo.Biases.FracBits = 3, 3
		g, err := quantise.Network(f, qo)
		if err != nil {
			t.Fatal(err)
		}
		in := spec.Inputs{Box: spec.Box{Lo: []float64{-0.3, -0.1, -0.4}, Hi: []float64{0.3, 0.5, 0.2}}, Pairing: spec.SameInput}
		o := DefaultOptions()
		o.Refine.TimeBudget, o.SearchWork, o.Method = 0, 1e6, MethodPropagation
		first, err := Bound(context.Background(), f, g, in, q, o)
		if err != nil {
			t.Fatal(err)
		}
		o.Method = MethodSDP
		for _, pieces := range []int{1, 0} {
			o.Refine.MaxPieces = pieces
			c, err := Bound(context.Background(), f, g, in, q, o)
			if err != nil {
				t.Fatal(err)
			}
			if !c.Certified() || len(c.Outputs) != len(first.Outputs) {
				t.Fatalf("seed %d, %d pieces: %v, outputs %v", seed, pieces, c.Status, c.Outputs)
			}
			for j, b := range c.Outputs {
				if b > first.Outputs[j]*(1+1e-12) {
					t.Errorf("seed %d, %d pieces: output %d bound %v above the first pass's %v", seed, pieces, j, b, first.Outputs[j])
				}
			}
		}
	}
}
