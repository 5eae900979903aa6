package bounds

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// eval32All returns every value of g at x evaluated in float32 as a
// runtime might: the input and weights rounded to float32, each affine
// output the float32 sum of the float32 products, in input order or
// reversed (then with naive activations, act32), plus the bias; every
// other operation on float32 values, its result rounded to float32 (a
// quantiser as Quantiser.Apply32).
func eval32All(g *nn.Graph, x []float64, reversed bool) [][]float64 {
	vals := make([][]float64, len(g.Nodes)+1)
	vals[0] = make([]float64, len(x))
	for i, v := range x {
		vals[0][i] = float64(float32(v))
	}
	for k, n := range g.Nodes {
		in := make([][]float64, len(n.Inputs))
		for i, v := range n.Inputs {
			in[i] = vals[v]
		}
		out := make([]float64, g.Size(k+1))
		switch op := n.Op.(type) {
		case *nn.Affine:
			affine32(op, in[0], out, reversed)
		case *nn.Quantise:
			for i, v := range in[0] {
				out[i] = float64(op.Q.Apply32(i, float32(v)))
			}
		case nn.Act:
			for i, v := range in[0] {
				out[i] = float64(act32(op.Act, float32(v), reversed))
			}
		default:
			op.Eval(out, in)
			for i, v := range out {
				out[i] = float64(float32(v))
			}
		}
		vals[k+1] = out
	}
	return vals
}

// act32 returns a(s) in float32: the float64 value rounded, or with
// naive, cancelling formulas for ELU (exp(s) - 1) and tanh
// ((e^2s - 1) / (e^2s + 1)), as a library might compute them.
func act32(a nn.Activation, s float32, naive bool) float32 {
	switch {
	case a.Kind == nn.LeakyReLU && s < 0:
		return float32(a.Alpha) * s
	case naive && a.Kind == nn.ELU && s < 0:
		return float32(a.Alpha) * (float32(math.Exp(float64(s))) - 1)
	case naive && a.Kind == nn.Tanh && math.Abs(float64(s)) < 9:
		e := float32(math.Exp(2 * float64(s)))
		return (e - 1) / (e + 1)
	}
	return float32(a.Apply(float64(s)))
}

// affine32 sets out = M x + B in float32 (see eval32All), M's entries
// found by applying it to the unit vectors.
func affine32(a *nn.Affine, x, out []float64, reversed bool) {
	n, m := a.M.In(), a.M.Out()
	cols := make([][]float64, n)
	e := make([]float64, n)
	for j := range n {
		e[j] = 1
		cols[j] = make([]float64, m)
		a.M.Apply(cols[j], e)
		e[j] = 0
	}
	for i := range out {
		var s float32
		for t := range n {
			j := t
			if reversed {
				j = n - 1 - t
			}
			s += float32(float32(cols[j][i]) * float32(x[j]))
		}
		if a.B != nil {
			s += float32(a.B[i])
		}
		out[i] = float64(s)
	}
}

// TestGraphFloat32Sound samples random graphs of every operation on boxes
// of several sizes, points among them, and checks every value of float32
// evaluations in two orders of summation, and nn.Graph.EvalFloat32's
// output, against the float32 enclosures; the real-arithmetic enclosures
// of point boxes must miss some of them, or the test proves nothing.
func TestGraphFloat32Sound(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 24))
	missed := 0
	for trial := range 24 {
		g := randGraph(rng)
		box := randBox(rng, g.InputSize(), []float64{0, 1e-6, 0.05}[trial%3])
		opts := graphMethods[trial%len(graphMethods)]
		real, err := GraphSingle(g, box, opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Float32 = true
		net, err := GraphSingle(g, box, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range boxSamples(rng, box, 20) {
			exact, _ := g.EvalAll(x)
			y32, _ := g.EvalFloat32(x)
			fwd, rev := eval32All(g, x, false), eval32All(g, x, true)
			err := errors.Join(insideAll(net, exact), insideAll(net, fwd), insideAll(net, rev))
			for j, y := range y32 {
				if !net.Output[j].Contains(y) {
					err = errors.Join(err, fmt.Errorf("EvalFloat32 output %d: %v outside %v", j, y, net.Output[j]))
				}
			}
			if err != nil {
				t.Fatalf("trial %d (%s): %v", trial, opts.Intermediate, err)
			}
			if insideAll(real, fwd) != nil || insideAll(real, rev) != nil {
				missed++
			}
		}
	}
	if missed == 0 {
		t.Error("the real-arithmetic enclosures hold every float32 evaluation: the test does not test")
	}
	t.Logf("%d samples outside the real-arithmetic enclosures", missed)
}

// TestGraphPairFloat32Sound checks the float32 enclosures of pairs (a
// graph and a perturbed copy, by the difference graph and by the combined
// one) against float32 evaluations of both networks in two orders.
func TestGraphPairFloat32Sound(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 25))
	for trial := range 12 {
		g1 := randGraph(rng)
		g2 := perturbed(rng, g1, 0.01)
		box := randBox(rng, g1.InputSize(), []float64{0, 1e-6, 0.05}[trial%3])
		for _, in := range graphPairings(box)[:3] {
			opts := graphMethods[trial%len(graphMethods)]
			opts.Combined, opts.Float32 = trial%2 == 1, true
			pb, err := GraphPair(g1, g2, in, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, x1 := range boxSamples(rng, in.Box, 20) {
				x2 := in.X2(x1)
				if in.Pairing == spec.Independent {
					x2 = boxSamples(rng, in.Box, 1)[2]
				}
				for _, rev := range []bool{false, true} {
					if err := pairInside(pb, eval32All(g1, x1, rev), eval32All(g2, x2, !rev)); err != nil {
						t.Fatalf("trial %d, %v, combined %v: %v", trial, in.Pairing, opts.Combined, err)
					}
				}
			}
		}
	}
}

// TestGraphFloat32QuantiserTie checks an int8 quantiser whose input lies
// 1e-9 below a tie: float64 rounds it down, float32 (the input rounded to
// the tie) up, a whole step apart. The real enclosure misses the float32
// output; the float32 enclosure holds both, alone and against a float
// network in a pair.
func TestGraphFloat32QuantiserTie(t *testing.T) {
	s := 1.0 / 16
	q := &nn.Quantiser{Scale: []float64{s}, Zero: []int64{0}, Lo: nn.Int8Lo, Hi: nn.Int8Hi}
	g := &nn.Graph{InputShape: []int{1}, Nodes: []nn.Node{{Op: &nn.Quantise{Q: q}, Inputs: []int{0}, Shape: []int{1}}}}
	f := &nn.Graph{InputShape: []int{1}, Nodes: []nn.Node{{Op: nn.Act{Act: nn.Activation{Kind: nn.Identity}}, Inputs: []int{0}, Shape: []int{1}}}}
	x := []float64{3.5*s - 1e-9}
	y64, _ := g.Eval(x)
	y32, _ := g.EvalFloat32(x)
	if y32[0]-y64[0] != s {
		t.Fatalf("float32 %v, float64 %v: not a step apart", y32[0], y64[0])
	}
	box := spec.Box{Lo: x, Hi: x}
	opts := DefaultGraphOptions()
	real, err := GraphSingle(g, box, opts)
	if err != nil {
		t.Fatal(err)
	}
	if real.Output[0].Contains(y32[0]) {
		t.Fatalf("the real enclosure %v holds the float32 output %v: the test does not test", real.Output[0], y32[0])
	}
	opts.Float32 = true
	net, err := GraphSingle(g, box, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !net.Output[0].Contains(y32[0]) || !net.Output[0].Contains(y64[0]) {
		t.Fatalf("float32 enclosure %v misses %v or %v", net.Output[0], y32[0], y64[0])
	}
	pb, err := GraphPair(f, g, spec.Inputs{Box: box}, opts)
	if err != nil {
		t.Fatal(err)
	}
	f32, _ := f.EvalFloat32(x)
	if d := y32[0] - f32[0]; !pb.Diff[0].Contains(d) {
		t.Fatalf("float32 difference %v outside %v", d, pb.Diff[0])
	}
}

// TestGraphFloat32Cancelling checks activations evaluated by formulas
// that cancel near 0 (act32's naive ELU and tanh), whose error is far
// above a relative bound there.
func TestGraphFloat32Cancelling(t *testing.T) {
	opts := DefaultGraphOptions()
	opts.Float32 = true
	for _, a := range []nn.Activation{{Kind: nn.ELU, Alpha: 1}, {Kind: nn.Tanh}} {
		g := &nn.Graph{InputShape: []int{1}, Nodes: []nn.Node{{Op: nn.Act{Act: a}, Inputs: []int{0}, Shape: []int{1}}}}
		for _, x := range []float64{-3e-5, -1e-4, 2e-4, -0.3} {
			box := spec.Box{Lo: []float64{x}, Hi: []float64{x}}
			net, err := GraphSingle(g, box, opts)
			if err != nil {
				t.Fatal(err)
			}
			y := float64(act32(a, float32(x), true))
			if !net.Output[0].Contains(y) {
				t.Errorf("%v at %v: naive float32 %v outside %v (exact %v)", a.Kind, x, y, net.Output[0], a.Apply(x))
			}
		}
	}
}

// TestGraphFloat32Overflow checks that a value beyond float32's range
// (which float32 evaluation makes infinite) gets an unbounded enclosure.
func TestGraphFloat32Overflow(t *testing.T) {
	g := &nn.Graph{InputShape: []int{1}, Nodes: []nn.Node{{Op: &nn.Affine{M: &nn.Scale{S: []float64{1e39}}}, Inputs: []int{0}, Shape: []int{1}}}}
	opts := DefaultGraphOptions()
	opts.Float32 = true
	net, err := GraphSingle(g, spec.Box{Lo: []float64{1}, Hi: []float64{1}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if y, _ := g.EvalFloat32([]float64{1}); !net.Output[0].Contains(y[0]) {
		t.Errorf("float32 %v outside %v", y[0], net.Output[0])
	}
}
