package certify

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// residualGraph returns the graph of a random 3-8-8-2 ReLU chain with a
// residual join around its second layer, and its FB = 4 copy.
func residualGraph(t *testing.T, seed uint64) (g1, g2 *nn.Graph) {
	t.Helper()
	f := randnet.Paper(seed, 3, 3, 8, 2)
	g1 = f.Graph()
	// nodes: affine, relu, affine, relu, affine, relu, affine: join the
	// output of the first relu (value 2) to that of the second (value 4).
	join := nn.Node{Op: nn.Add{}, Inputs: []int{2, 4}, Shape: []int{8}}
	nodes := append([]nn.Node(nil), g1.Nodes[:4]...)
	nodes = append(nodes, join)
	for _, n := range g1.Nodes[4:] {
		n.Inputs = []int{n.Inputs[0] + 1}
		nodes = append(nodes, n)
	}
	g1.Nodes = nodes
	if err := g1.Validate(); err != nil {
		t.Fatal(err)
	}
	return g1, fixedCopy(t, g1)
}

// fixedCopy returns the FB = 4 copy of g.
func fixedCopy(t *testing.T, g *nn.Graph) *nn.Graph {
	t.Helper()
	qo := quantise.DefaultOptions()
	qo.Weights.FracBits, qo.Biases.FracBits = 4, 4
	c, err := quantise.Graph(g, qo)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestBoundGraphSound certifies residual graphs against their fixed-point
// copies, for each quantity and pairing, and checks the bound against
// sampled inputs.
func TestBoundGraphSound(t *testing.T) {
	box := spec.Box{Lo: []float64{-1, -1, -1}, Hi: []float64{1, 1, 1}}
	for _, q := range []spec.Quantity{{Norm: spec.Norm2}, {Norm: spec.NormInf}, {C: []float64{1, -2}}} {
		for _, pairing := range []spec.Pairing{spec.SameInput, spec.Independent} {
			g1, g2 := residualGraph(t, 11)
			in := spec.Inputs{Box: box, Pairing: pairing}
			o := DefaultOptions()
			o.Refine.TimeBudget, o.Refine.MaxPieces = 0, 16
			c, err := BoundGraph(context.Background(), g1, g2, in, q, o)
			if err != nil {
				t.Fatal(err)
			}
			if !c.Certified() || !c.SDPSkipped.Skipped() || c.ObservedError > c.Bound {
				t.Fatalf("%v %v: certified %v, bound %v, observed %v, SDP skipped %q", q, pairing, c.Certified(), c.Bound, c.ObservedError, c.SDPSkipped)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			for range 2000 {
				x1, x2 := make([]float64, 3), make([]float64, 3)
				for i := range x1 {
					x1[i], x2[i] = 2*rng.Float64()-1, 2*rng.Float64()-1
				}
				if pairing == spec.SameInput {
					x2 = x1
				}
				y1, _ := g1.Eval(x1)
				y2, _ := g2.Eval(x2)
				if e := q.Measure(y1, y2); e > c.Bound {
					t.Fatalf("%v %v: error %v at %v, %v above the bound %v", q, pairing, e, x1, x2, c.Bound)
				}
			}
			t.Logf("%v %v: bound %.4g, observed %.4g, %d pieces", q, pairing, c.Bound, c.ObservedError, max(1, len(c.Pieces)))
		}
	}
}

// TestBoundGraphFloat32 checks that a float32 certificate holds for the
// float32 evaluations of both graphs and is at least the real one, and
// that Bound (the SDP, real arithmetic only) refuses float32.
func TestBoundGraphFloat32(t *testing.T) {
	g1, g2 := residualGraph(t, 12)
	in := spec.Inputs{Box: spec.Box{Lo: []float64{-1, -1, -1}, Hi: []float64{1, 1, 1}}, Pairing: spec.SameInput}
	q := spec.Quantity{Norm: spec.Norm2}
	o := DefaultOptions()
	o.Refine.TimeBudget, o.Refine.MaxPieces = 0, 4
	real, err := BoundGraph(context.Background(), g1, g2, in, q, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Arith = ArithFloat32
	c, err := BoundGraph(context.Background(), g1, g2, in, q, o)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Certified() || c.Arith != ArithFloat32 || c.Bound < real.Bound {
		t.Fatalf("certified %v, arith %v, bound %v below the real %v", c.Certified(), c.Arith, c.Bound, real.Bound)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		x := []float64{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
		y1, _ := g1.EvalFloat32(x)
		y2, _ := g2.EvalFloat32(x)
		if e := q.Measure(y1, y2); e > c.Bound {
			t.Fatalf("float32 error %v at %v above the bound %v", e, x, c.Bound)
		}
	}
	f := randnet.Paper(12, 3, 2, 4, 2)
	if _, err := Bound(context.Background(), f, f, in, q, o); !errors.Is(err, ErrArith) {
		t.Errorf("Bound with float32: %v, want ErrArith", err)
	}
}

// TestBoundGraphInfinite checks that a bound propagation that overflows
// claims no bound: the certificate is not certified and says why.
func TestBoundGraphInfinite(t *testing.T) {
	g1, g2 := residualGraph(t, 11)
	big := 1e306
	in := spec.Inputs{Box: spec.Box{Lo: []float64{-big, -big, -big}, Hi: []float64{big, big, big}}, Pairing: spec.SameInput}
	o := DefaultOptions()
	o.Refine.TimeBudget, o.Refine.MaxPieces = 0, 1
	c, err := BoundGraph(context.Background(), g1, g2, in, spec.Quantity{Norm: spec.Norm2}, o)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(c.Bound, 1) {
		t.Fatalf("bound %v: the test needs an overflow", c.Bound)
	}
	if c.Certified() || c.Reason == "" {
		t.Errorf("an infinite bound: certified %v, reason %q", c.Certified(), c.Reason)
	}
}

// TestBoundGraphFirstPass certifies a residual graph on a box where the
// cheap first pass (IntermediateInterval) bounds the 2-norm and the
// inf-norm below the full pass (IntermediateBacksub): the certificate
// takes the smaller, without refinement and with.
func TestBoundGraphFirstPass(t *testing.T) {
	g1, g2 := residualGraph(t, 13)
	in := spec.Inputs{Box: spec.Box{Lo: []float64{-0.1, 0.1, -0.4}, Hi: []float64{0.1, 0.3, -0.2}}, Pairing: spec.SameInput}
	for _, q := range []spec.Quantity{{Norm: spec.Norm2}, {Norm: spec.NormInf}} {
		first, err := graphPiece(context.Background(), g1, g2, in, q, ArithReal, bounds.IntermediateInterval)
		if err != nil {
			t.Fatal(err)
		}
		full, err := graphPiece(context.Background(), g1, g2, in, q, ArithReal, bounds.IntermediateBacksub)
		if err != nil {
			t.Fatal(err)
		}
		if !(first.bound < full.bound) {
			t.Fatalf("%v: first pass %v, full pass %v: the box no longer shows a first pass below the full one", q, first.bound, full.bound)
		}
		for _, pieces := range []int{1, 8} {
			o := DefaultOptions()
			o.Refine.TimeBudget, o.Refine.MaxPieces = 0, pieces
			c, err := BoundGraph(context.Background(), g1, g2, in, q, o)
			if err != nil {
				t.Fatal(err)
			}
			if !c.Certified() || c.Bound > first.bound || c.RootBound != first.bound {
				t.Errorf("%v, %d pieces: bound %v, root bound %v, first pass %v (full %v)", q, pieces, c.Bound, c.RootBound, first.bound, full.bound)
			}
		}
	}
}

// TestBoundGraphFirstPassSurvey (NNBOUND_LONG=1) bounds L-inf balls of
// radius 0.25 to 8/255 about the first three test images of
// testdata/graphs, for the digits models against their int8 and FB-8
// copies, by the first and the full pass, in the 2-norm and the
// inf-norm, and logs the cases where the first pass is the smaller.
func TestBoundGraphFirstPassSurvey(t *testing.T) {
	if os.Getenv("NNBOUND_LONG") != "1" {
		t.Skip("NNBOUND_LONG=1 runs the survey")
	}
	dir := filepath.Join("..", "testdata", "graphs")
	load := func(name string) *nn.Graph {
		g, _, _, err := modelfile.LoadGraph(filepath.Join(dir, name+".onnx"), modelfile.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	rescnn := load("digits_rescnn")
	qo := quantise.DefaultOptions()
	qo.Weights.FracBits, qo.Biases.FracBits = 8, 8
	fb8, err := quantise.Graph(rescnn, qo)
	if err != nil {
		t.Fatal(err)
	}
	pairs := []struct {
		name   string
		g1, g2 *nn.Graph
	}{
		{"digits_rescnn int8 ort", rescnn, load("digits_rescnn_int8_ort")},
		{"digits_rescnn int8 torch", rescnn, load("digits_rescnn_int8_torch")},
		{"digits_rescnn FB 8", rescnn, fb8},
		{"digits_cnn int8 torch", load("digits_cnn"), load("digits_cnn_int8_torch")},
		{"digits_resid int8 ort", load("digits_resid"), load("digits_resid_int8_ort")},
	}
	data, err := os.ReadFile(filepath.Join(dir, "digits_test.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Inputs [][]float64 }
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	smaller, cases := 0, 0
	for _, p := range pairs {
		for i, x := range file.Inputs[:3] {
			for _, r := range []float64{0.25 / 255, 1.0 / 255, 2.0 / 255, 8.0 / 255} {
				box := spec.Box{Lo: make([]float64, len(x)), Hi: make([]float64, len(x))}
				for k := range x {
					box.Lo[k], box.Hi[k] = max(0, x[k]-r), min(1, x[k]+r)
				}
				in := spec.Inputs{Box: box, Pairing: spec.SameInput}
				for _, q := range []spec.Quantity{{Norm: spec.Norm2}, {Norm: spec.NormInf}} {
					first, err := graphPiece(context.Background(), p.g1, p.g2, in, q, ArithReal, bounds.IntermediateInterval)
					if err != nil {
						t.Fatal(err)
					}
					full, err := graphPiece(context.Background(), p.g1, p.g2, in, q, ArithReal, bounds.IntermediateBacksub)
					if err != nil {
						t.Fatal(err)
					}
					if math.IsInf(first.bound, 0) || math.IsNaN(full.bound) {
						t.Errorf("%s, image %d, radius %.3g/255, %v: first %v, full %v", p.name, i, r*255, q, first.bound, full.bound)
					}
					cases++
					if first.bound < full.bound {
						smaller++
						t.Logf("%s, image %d, radius %.3g/255, %v: first %.6g below full %.6g", p.name, i, r*255, q, first.bound, full.bound)
					}
				}
			}
		}
	}
	t.Logf("the first pass was the smaller in %d of %d cases", smaller, cases)
}
