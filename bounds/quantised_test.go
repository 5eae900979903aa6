package bounds

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// qdqPair returns a random ReLU network on a random box and its random
// int8 (or narrower) copy, calibrated on samples of the box with ranges
// narrowed so that the quantisers saturate (boundstest.Int8).
func qdqPair(t *testing.T, rng *rand.Rand) (f, fq *nn.Network, box spec.Box) {
	t.Helper()
	sizes := []int{1 + rng.IntN(3)}
	for range 1 + rng.IntN(3) {
		sizes = append(sizes, 2+rng.IntN(8))
	}
	sizes = append(sizes, 1+rng.IntN(2))
	f = boundstest.Network(rng, sizes, 0.5+rng.Float64(), nn.Activation{Kind: nn.ReLU})
	box = randomBox(rng, sizes[0])
	var xs [][]float64
	for range 64 {
		xs = append(xs, boundstest.Uniform(rng, box.Lo, box.Hi))
	}
	fq, _, err := boundstest.Int8(rng, f, xs)
	if err != nil {
		t.Fatal(err)
	}
	return f, fq, box
}

// TestQuantisedSoundness checks the bounds of float vs int8 pairs (qdqPair)
// at the box's corners and random points (a dense grid for one input),
// for every method of the campaign: the output difference, a random
// margin, the norm (Norm2Planar) and the int8 network's own output
// bounds. Every fifth pair is a
// fixed-point copy whose hidden outputs are rounded (quantise.Options.
// ActFracBits) instead. Every third pair is
// bounded with a requantisation slack of one step and checked against a
// kernel that rounds down or up at random instead of to nearest. 150 pairs;
// NNBOUND_LONG=1 runs 3000.
func TestQuantisedSoundness(t *testing.T) {
	pairs := 150
	if os.Getenv("NNBOUND_LONG") != "" {
		pairs = 3000
	}
	rng := rand.New(rand.NewPCG(12, 8))
	for trial := range pairs {
		f, fq, box := qdqPair(t, rng)
		if trial%5 == 4 { // fixed point with rounded activations: output quantisers alone
			fb := quantise.Format{FracBits: 3 + rng.IntN(6), Rounding: quantise.Nearest}
			var err error
			fq, err = quantise.Network(f, quantise.Options{Weights: fb, Biases: fb, ActFracBits: 1 + rng.IntN(6)})
			if err != nil {
				t.Fatal(err)
			}
		}
		opts := soundnessOptions[trial%len(soundnessOptions)]
		eval := fq.Eval
		if trial%3 == 2 {
			opts.RequantSlack = 1
			eval = func(x []float64) ([]float64, error) { return kernelEval(fq, x, rng), nil }
		}
		in := spec.Inputs{Box: box, Pairing: spec.SameInput}
		pb, err := Pair(f, fq, in, opts)
		if err != nil {
			t.Fatal(err)
		}
		single, err := Single(fq, box, opts)
		if err != nil {
			t.Fatal(err)
		}
		c := make([]float64, f.OutputSize())
		for j := range c {
			c[j] = rng.NormFloat64()
		}
		m, err := pb.Margin(c)
		if err != nil {
			t.Fatal(err)
		}
		planar, err := pb.Norm2Planar(2 + trial%7)
		if err != nil {
			t.Fatal(err)
		}
		last := single.Post[len(single.Post)-1]
		for _, x := range campaignPoints(rng, box) {
			y1, _ := f.Eval(x)
			y2, _ := eval(x)
			v, scale, n2, ys := 0.0, 0.0, 0.0, 0.0
			for j := range y1 {
				n2 += (y2[j] - y1[j]) * (y2[j] - y1[j])
				ys += math.Abs(y1[j])
				if !near(pb.Output[j], y2[j]-y1[j], math.Abs(y1[j])) || !near(last[j], y2[j], 0) {
					t.Fatalf("trial %d (%v split %d): at x=%v output %d: difference %v outside %v, value %v outside %v",
						trial, opts.Method, opts.Split, x, j, y2[j]-y1[j], pb.Output[j], y2[j], last[j])
				}
				v += c[j] * (y2[j] - y1[j])
				scale += math.Abs(c[j] * y1[j])
			}
			if !near(m, v, scale) {
				t.Fatalf("trial %d (%v split %d): margin %v at x=%v outside %v", trial, opts.Method, opts.Split, v, x, m)
			}
			if n2 = math.Sqrt(n2); !near(Interval{0, planar}, n2, ys) {
				t.Fatalf("trial %d (%v split %d): ||fq - f|| = %v at x=%v above Norm2Planar %v", trial, opts.Method, opts.Split, n2, x, planar)
			}
		}
	}
}

// TestQuantisedRefusal checks that a quantiser bound propagation does not
// model is refused by name.
func TestQuantisedRefusal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	f, fq, box := qdqPair(t, rng)
	fq.Layers[0].Act = nn.Activation{Kind: nn.Tanh}
	f.Layers[0].Act = nn.Activation{Kind: nn.Tanh}
	if _, err := Pair(f, fq, spec.Inputs{Box: box}, DefaultOptions()); err == nil {
		t.Fatal("a quantiser before tanh was accepted")
	} else {
		t.Log(err)
	}
}

// kernelEval returns fq(x) as an integer kernel that rounds v / s down or
// up at random (within one step of the reference) would compute it.
func kernelEval(fq *nn.Network, x []float64, rng *rand.Rand) []float64 {
	q := func(qz *nn.Quantiser, i int, v float64) float64 {
		if qz == nil {
			return v
		}
		s, z := qz.At(i)
		k := math.Floor(v / s)
		if rng.IntN(2) == 0 {
			k = math.Ceil(v / s)
		}
		k = min(max(k+float64(z), float64(qz.Lo)), float64(qz.Hi))
		return (k - float64(z)) * s
	}
	h := append([]float64(nil), x...)
	for i, v := range h {
		h[i] = q(fq.Input, i, v)
	}
	for _, l := range fq.Layers {
		out := make([]float64, l.Out())
		for i := range out {
			s := l.B[i]
			for j, w := range l.W.RawRowView(i) {
				s += w * h[j]
			}
			out[i] = q(l.Post, i, l.Act.Apply(q(l.Pre, i, s)))
		}
		h = out
	}
	return h
}

// TestNorm2PlanarDirections checks that fewer than two directions are
// refused, and that one output gives Norm2.
func TestNorm2PlanarDirections(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	f, fq, box := qdqPair(t, rng)
	pb, err := Pair(f, fq, spec.Inputs{Box: box, Pairing: spec.SameInput}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pb.Norm2Planar(1); err == nil {
		t.Fatal("one direction accepted")
	}
	if v, err := pb.Norm2Planar(4); err != nil || v > pb.Norm2() || (f.OutputSize() == 1 && v != pb.Norm2()) {
		t.Fatalf("Norm2Planar %v (%v), Norm2 %v, %d outputs", v, err, pb.Norm2(), f.OutputSize())
	}
}
