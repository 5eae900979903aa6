package bounds

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// testOptions are the option sets the sampling tests cover.
var testOptions = []Options{
	{Method: MethodInterval},
	{Method: MethodSymbolic},
	{Method: MethodOptimised},
	{Method: MethodSymbolic, Split: 3},
	{Method: MethodOptimised, Split: 4, Optimise: OptimiseSettings{Iterations: 5, Step: 0.5}},
}

// randomBox returns a box of dimension n with ends in [-2, 2] (sometimes a
// point).
func randomBox(rng *rand.Rand, n int) spec.Box {
	b := spec.Box{Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := range n {
		a, c := 4*rng.Float64()-2, 4*rng.Float64()-2
		if rng.IntN(10) == 0 {
			c = a
		}
		b.Lo[i], b.Hi[i] = min(a, c), max(a, c)
	}
	return b
}

// randomSizes returns [n_x, hidden..., n_f] with 1-4 layers and n_x 1-5.
func randomSizes(rng *rand.Rand) []int {
	s := []int{1 + rng.IntN(5)}
	for range rng.IntN(4) {
		s = append(s, 1+rng.IntN(6))
	}
	return append(s, 1+rng.IntN(3))
}

// near reports whether v, a float64 evaluation of a quantity whose exact
// value is enclosed by x, is consistent with x: the sampled networks are
// evaluated in float64 and their rounding error (relative 1e-12 of the
// magnitudes involved) is allowed for.
func near(x Interval, v, scale float64) bool {
	tol := 1e-12 * (1 + math.Abs(v) + scale)
	return x.Lo-tol <= v && v <= x.Hi+tol
}

// inside reports the first value of got not enclosed by want.
func inside(want []Interval, got []float64) error {
	for i, v := range got {
		if !near(want[i], v, 0) {
			return fmt.Errorf("value %d = %v outside %v", i, v, want[i])
		}
	}
	return nil
}

// checkNet checks that net encloses the trace of f at x.
func checkNet(f *nn.Network, net *Net, x []float64) error {
	pre, post := boundstest.Trace(f, x)
	for k := range pre {
		if err := inside(net.Pre[k], pre[k]); err != nil {
			return fmt.Errorf("layer %d pre-activation: %w", k, err)
		}
		if err := inside(net.Post[k], post[k]); err != nil {
			return fmt.Errorf("layer %d output: %w", k, err)
		}
	}
	return nil
}

func TestSingleEnclosesSamples(t *testing.T) {
	for c, m := range testOptions {
		rng := rand.New(rand.NewPCG(1, uint64(c)))
		for trial := range 300 {
			f := boundstest.Network(rng, randomSizes(rng), 1)
			box := randomBox(rng, f.InputSize())
			net, err := Single(f, box, m)
			if err != nil {
				t.Fatal(err)
			}
			for range 50 {
				x := boundstest.Uniform(rng, box.Lo, box.Hi)
				if err := checkNet(f, net, x); err != nil {
					t.Fatalf("%v trial %d at x=%v: %v", m, trial, x, err)
				}
			}
		}
	}
}

// randomPair returns f1 and a related f2 (perturbed, float16, identical or
// unrelated) and a random input set.
func randomPair(rng *rand.Rand) (f1, f2 *nn.Network, in spec.Inputs) {
	f1 = boundstest.Network(rng, randomSizes(rng), 1)
	switch rng.IntN(4) {
	case 0:
		f2 = boundstest.Perturb(rng, f1, 0.05)
	case 1:
		f2 = boundstest.Float16(f1)
	case 2:
		f2 = f1.Clone()
	default:
		s := f1.Sizes()
		f2 = boundstest.Network(rng, s, 1)
	}
	in = spec.Inputs{Box: randomBox(rng, f1.InputSize()), Pairing: spec.Pairing(rng.IntN(3)),
		Quant: quantise.Format{FracBits: rng.IntN(5), Rounding: quantise.Rounding(rng.IntN(3))}}
	if ib := rng.IntN(3); ib > 0 { // ranges of 2^ib, partly inside the box
		in.Quant.IntBits, in.Quant.Saturate = ib, rng.IntN(2) == 0
	}
	return f1, f2, in
}

// samplePair returns a random input pair of in: x1 uniform in the box and
// x2 paired with it (independent of it for spec.Independent).
func samplePair(rng *rand.Rand, in spec.Inputs) (x1, x2 []float64) {
	x1 = boundstest.Uniform(rng, in.Box.Lo, in.Box.Hi)
	if in.Pairing == spec.Independent {
		return x1, boundstest.Uniform(rng, in.Box.Lo, in.Box.Hi)
	}
	return x1, in.X2(x1)
}

// checkPair checks that pb encloses the traces of f1 at x1 and f2 at x2.
func checkPair(f1, f2 *nn.Network, pb *PairBounds, x1, x2 []float64) error {
	if err := checkNet(f1, pb.Net1, x1); err != nil {
		return fmt.Errorf("network 1: %w", err)
	}
	if err := checkNet(f2, pb.Net2, x2); err != nil {
		return fmt.Errorf("network 2: %w", err)
	}
	d := make([]float64, len(x1))
	for i := range d {
		d[i] = x2[i] - x1[i]
	}
	if err := inside(pb.DiffIn, d); err != nil {
		return fmt.Errorf("input difference: %w", err)
	}
	pre1, post1 := boundstest.Trace(f1, x1)
	pre2, post2 := boundstest.Trace(f2, x2)
	for k := range pb.DiffPre {
		if pb.DiffPre[k] == nil {
			continue
		}
		for i := range pb.DiffPre[k] {
			if v := pre2[k][i] - pre1[k][i]; !near(pb.DiffPre[k][i], v, math.Abs(pre1[k][i])) {
				return fmt.Errorf("layer %d neuron %d: pre-activation difference %v outside %v", k, i, v, pb.DiffPre[k][i])
			}
			if v := post2[k][i] - post1[k][i]; !near(pb.DiffPost[k][i], v, math.Abs(post1[k][i])) {
				return fmt.Errorf("layer %d neuron %d: output difference %v outside %v", k, i, v, pb.DiffPost[k][i])
			}
		}
	}
	y1, y2 := post1[len(post1)-1], post2[len(post2)-1]
	for j := range y1 {
		if v := y2[j] - y1[j]; !near(pb.Output[j], v, math.Abs(y1[j])) {
			return fmt.Errorf("output %d difference %v outside %v", j, v, pb.Output[j])
		}
	}
	return nil
}

func TestPairEnclosesSamples(t *testing.T) {
	for c, m := range testOptions {
		rng := rand.New(rand.NewPCG(2, uint64(c)))
		for trial := range 400 {
			f1, f2, in := randomPair(rng)
			pb, err := Pair(f1, f2, in, m)
			if err != nil {
				t.Fatal(err)
			}
			for range 40 {
				x1, x2 := samplePair(rng, in)
				if err := checkPair(f1, f2, pb, x1, x2); err != nil {
					t.Fatalf("%v trial %d (%v, FB %d %v) at x1=%v x2=%v: %v",
						m, trial, in.Pairing, in.Quant.FracBits, in.Quant.Rounding, x1, x2, err)
				}
			}
		}
	}
}

func TestPairDiffTighterThanSubtraction(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 0))
	for trial := range 200 {
		f1, f2, in := randomPair(rng)
		for _, m := range []Method{MethodInterval, MethodSymbolic, MethodOptimised} {
			pb, err := Pair(f1, f2, in, Options{Method: m})
			if err != nil {
				t.Fatal(err)
			}
			s1, _ := Single(f1, in.Box, Options{Method: m})
			box2 := in.Box
			if in.Pairing == spec.QuantisedInput {
				box2 = spec.Box{Lo: in.X2(in.Box.Lo), Hi: in.X2(in.Box.Hi)}
			}
			s2, _ := Single(f2, box2, Options{Method: m})
			naive := subAll(s2.Post[len(s2.Post)-1], s1.Post[len(s1.Post)-1])
			for j, o := range pb.Output {
				if o.Lo < naive[j].Lo || o.Hi > naive[j].Hi {
					t.Fatalf("trial %d %v output %d: pair bound %v looser than subtraction %v", trial, m, j, o, naive[j])
				}
			}
		}
	}
}

func TestErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 0))
	f := boundstest.Network(rng, []int{2, 3, 1}, 1)
	g := boundstest.Network(rng, []int{3, 3, 1}, 1)
	h := boundstest.Network(rng, []int{2, 3, 2}, 1)
	box := spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}
	opts := DefaultOptions()
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"nil network", func() error { _, err := Single(nil, box, opts); return err }(), nn.ErrDimension},
		{"wrong input size", func() error { _, err := Single(g, box, opts); return err }(), nn.ErrDimension},
		{"inverted box", func() error {
			_, err := Single(f, spec.Box{Lo: []float64{1, 0}, Hi: []float64{0, 0}}, opts)
			return err
		}(), spec.ErrBox},
		{"bad method", func() error { _, err := Single(f, box, Options{Method: 7}); return err }(), ErrOptions},
		{"negative split", func() error { _, err := Single(f, box, Options{Split: -1}); return err }(), ErrOptions},
		{"huge split", func() error { _, err := Pair(f, f, spec.Inputs{Box: box}, Options{Split: 1 << 20}); return err }(), ErrOptions},
		{"negative iterations", func() error {
			_, err := Single(f, box, Options{Method: MethodOptimised, Optimise: OptimiseSettings{Iterations: -1}})
			return err
		}(), ErrOptions},
		{"NaN step", func() error {
			_, err := Single(f, box, Options{Method: MethodOptimised, Optimise: OptimiseSettings{Step: math.NaN()}})
			return err
		}(), ErrOptions},
		{"output sizes differ", func() error { _, err := Pair(f, h, spec.Inputs{Box: box}, opts); return err }(), nn.ErrDimension},
		{"pair input size", func() error { _, err := Pair(f, g, spec.Inputs{Box: box}, opts); return err }(), nn.ErrDimension},
		{"bad pairing", func() error { _, err := Pair(f, f, spec.Inputs{Box: box, Pairing: 9}, opts); return err }(), spec.ErrInputs},
		{"bad rounding", func() error {
			_, err := Pair(f, f, spec.Inputs{Box: box, Pairing: spec.QuantisedInput, Quant: quantise.Format{Rounding: 5}}, opts)
			return err
		}(), spec.ErrInputs},
	}
	for _, tc := range tests {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, tc.err, tc.want)
		}
	}
}

func TestQuantErrorExact(t *testing.T) {
	// Inside one cell of the trunc grid the error is q - s exactly.
	in := spec.Inputs{Pairing: spec.QuantisedInput, Quant: quantise.Format{FracBits: 2}}
	got := quantError(in, Interval{0.3, 0.45})
	if got.Lo > 0.25-0.45 || got.Hi < 0.25-0.3 || got.Hi > -0.04 {
		t.Errorf("quantError [0.3,0.45] = %v, want about [-0.2, -0.05]", got)
	}
	got = quantError(in, Interval{-1, 1})
	if got != (Interval{-0.25, 0.25}) {
		t.Errorf("quantError [-1,1] = %v, want [-0.25, 0.25]", got)
	}
}

func TestSymbolicPairNeverLooserThanInterval(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 0))
	for trial := range 300 {
		f1, f2, in := randomPair(rng)
		iv, err := Pair(f1, f2, in, Options{Method: MethodInterval})
		if err != nil {
			t.Fatal(err)
		}
		sy, _ := Pair(f1, f2, in, Options{Method: MethodSymbolic})
		for k := range iv.DiffPre {
			for i := range iv.DiffPre[k] {
				a, b := iv.DiffPre[k][i], sy.DiffPre[k][i]
				if b.Lo < a.Lo || b.Hi > a.Hi {
					t.Fatalf("trial %d layer %d neuron %d: symbolic difference %v looser than interval %v", trial, k, i, b, a)
				}
			}
		}
		for j := range iv.Output {
			if a, b := iv.Output[j], sy.Output[j]; b.Lo < a.Lo || b.Hi > a.Hi {
				t.Fatalf("trial %d output %d: symbolic %v looser than interval %v", trial, j, b, a)
			}
		}
	}
}

func TestDifferentialTightOnFloat16(t *testing.T) {
	// A float16 copy of a 3-layer tanh/ReLU network: the differential bound
	// is far tighter than subtracting the single-network bounds.
	rng := rand.New(rand.NewPCG(11, 0))
	for _, act := range boundstest.Activations[1:] {
		f1 := boundstest.Network(rng, []int{3, 10, 10, 10, 1}, 0.5, act)
		f2 := boundstest.Float16(f1)
		in := spec.Inputs{Box: spec.Box{Lo: []float64{-1, -1, -1}, Hi: []float64{1, 1, 1}}}
		pb, err := Pair(f1, f2, in, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		s1, _ := Single(f1, in.Box, DefaultOptions())
		s2, _ := Single(f2, in.Box, DefaultOptions())
		naive := s2.Post[3][0].Sub(s1.Post[3][0])
		if w, nw := pb.Output[0].Width(), naive.Width(); w > 0.05*nw {
			t.Errorf("%v: differential width %.3g, subtraction %.3g", act, w, nw)
		}
	}
}

func TestMarginEnclosesSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 0))
	tighter := 0
	for trial := range 300 {
		f1, f2, in := randomPair(rng)
		m := testOptions[rng.IntN(len(testOptions))]
		pb, err := Pair(f1, f2, in, m)
		if err != nil {
			t.Fatal(err)
		}
		c := make([]float64, f1.OutputSize())
		for j := range c {
			c[j] = rng.NormFloat64()
		}
		got, err := pb.Margin(c)
		if err != nil {
			t.Fatal(err)
		}
		naive := Point(0)
		for j, v := range c {
			naive = naive.Add(Point(v).Scale(pb.Output[j]))
		}
		if got.Lo < naive.Lo || got.Hi > naive.Hi {
			t.Fatalf("trial %d: margin %v looser than %v", trial, got, naive)
		}
		if got.Width() < 0.99*naive.Width() {
			tighter++
		}
		for range 40 {
			x1, x2 := samplePair(rng, in)
			y1, _ := f1.Eval(x1)
			y2, _ := f2.Eval(x2)
			v, scale := 0.0, 0.0
			for j := range c {
				v += c[j] * (y2[j] - y1[j])
				scale += math.Abs(c[j] * y1[j])
			}
			if !near(got, v, scale) {
				t.Fatalf("trial %d (%v, %v): c^T(f2 - f1) = %v outside %v", trial, m.Method, in.Pairing, v, got)
			}
		}
	}
	if tighter == 0 {
		t.Error("margin never tighter than the per-output intervals")
	}
	pb, _ := Pair(boundstest.Network(rand.New(rand.NewPCG(1, 1)), []int{1, 2, 2}, 1), boundstest.Network(rand.New(rand.NewPCG(1, 2)), []int{1, 2, 2}, 1),
		spec.Inputs{Box: spec.Box{Lo: []float64{0}, Hi: []float64{1}}}, DefaultOptions())
	if _, err := pb.Margin([]float64{1}); !errors.Is(err, nn.ErrDimension) {
		t.Errorf("margin of the wrong length: got %v", err)
	}
	if _, err := pb.Margin([]float64{1, math.Inf(1)}); !errors.Is(err, ErrOptions) {
		t.Errorf("infinite margin weight: got %v", err)
	}
}

func TestHugeValuesGiveNoNaN(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 0))
	for range 50 {
		f1 := boundstest.Network(rng, []int{2, 4, 4, 1}, 1e150)
		f2 := boundstest.Perturb(rng, f1, 0.01)
		in := spec.Inputs{Box: spec.Box{Lo: []float64{-1e200, -1}, Hi: []float64{1e200, 1}}}
		for _, m := range []Method{MethodInterval, MethodSymbolic, MethodOptimised} {
			pb, err := Pair(f1, f2, in, Options{Method: m})
			if err != nil {
				t.Fatal(err)
			}
			all := [][]Interval{pb.Output}
			all = append(all, pb.Net1.Pre...)
			all = append(all, pb.DiffPost...)
			for _, layer := range all {
				for _, x := range layer {
					if math.IsNaN(x.Lo) || math.IsNaN(x.Hi) || x.Lo > x.Hi {
						t.Fatalf("%v: bound %v", m, x)
					}
				}
			}
		}
	}
}
