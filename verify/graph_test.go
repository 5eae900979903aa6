package verify

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// residualPair returns a random 2-8-8-2 ReLU chain's graph with a
// residual join around its second layer, and the copy with weights and
// biases in fixed point with fb fractional bits.
func residualPair(t *testing.T, seed uint64, fb int) (f, g *nn.Graph) {
	t.Helper()
	f = randnet.Paper(seed, 2, 3, 8, 2).Graph()
	nodes := append([]nn.Node(nil), f.Nodes[:4]...)
	nodes = append(nodes, nn.Node{Op: nn.Add{}, Inputs: []int{2, 4}, Shape: []int{8}})
	for _, n := range f.Nodes[4:] {
		n.Inputs = []int{n.Inputs[0] + 1}
		nodes = append(nodes, n)
	}
	f.Nodes = nodes
	qo := quantise.DefaultOptions()
	qo.Weights.FracBits, qo.Biases.FracBits = fb, fb
	g, err := quantise.Graph(f, qo)
	if err != nil {
		t.Fatal(err)
	}
	return f, g
}

// TestDecideGraph decides residual graphs against their fixed-point
// copies at twice and half the largest difference sampled: holds must
// not be contradicted by sampling, violated must come with a re-checked
// counterexample, and both must be decided.
func TestDecideGraph(t *testing.T) {
	box := spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}
	in := spec.Inputs{Box: box, Pairing: spec.SameInput}
	for seed := uint64(1); seed <= 3; seed++ {
		f, g := residualPair(t, seed, 6)
		rng := rand.New(rand.NewPCG(seed, 9))
		worst := 0.0
		tol := spec.Tolerance{Norm: spec.NormInf}
		for range 4000 {
			x := []float64{2*rng.Float64() - 1, 2*rng.Float64() - 1}
			yf, _ := f.Eval(x)
			yg, _ := g.Eval(x)
			d := make([]float64, len(yf))
			for k := range d {
				d[k] = yg[k] - yf[k]
			}
			worst = max(worst, tol.Measure(d))
		}
		for _, c := range []struct {
			eps  float64
			want Status
		}{{2 * worst, Holds}, {worst / 2, Violated}} {
			opts := DefaultOptions()
			opts.MaxNodes = 20000
			r, err := DecideGraph(context.Background(), f, g, in, spec.Tolerance{Norm: spec.NormInf, Eps: []float64{c.eps}}, &opts)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != c.want {
				t.Fatalf("seed %d eps %v: %v (%v) after %d nodes, want %v", seed, c.eps, r.Status, r.Reason, r.Nodes, c.want)
			}
			if r.Status == Holds && r.Bound < worst {
				t.Fatalf("seed %d: holds with bound %v below the sampled %v", seed, r.Bound, worst)
			}
			if r.Status == Violated && !(r.Counterexample.MeasureLo > c.eps) {
				t.Fatalf("seed %d: counterexample's measure %v is not past %v", seed, r.Counterexample.MeasureLo, c.eps)
			}
			t.Logf("seed %d eps %.4g: %v, %d nodes, bound %.4g", seed, c.eps, r.Status, r.Nodes, r.Bound)
		}
	}
}

// TestCheckPointGraphOfChain checks that a chain's graph gets CheckPoint's
// verdict at the same points.
func TestCheckPointGraphOfChain(t *testing.T) {
	f, g := randnet.Paper(4, 2, 2, 6, 2), randnet.Paper(5, 2, 2, 6, 2)
	tol := spec.Tolerance{Norm: spec.NormInf, Eps: []float64{1}}
	rng := rand.New(rand.NewPCG(4, 4))
	for range 200 {
		x := []float64{2*rng.Float64() - 1, 2*rng.Float64() - 1}
		pc, sc, err := CheckPoint(f, g, x, x, tol)
		if err != nil {
			t.Fatal(err)
		}
		pg, sg, err := CheckPointGraph(f.Graph(), g.Graph(), x, x, tol)
		if err != nil {
			t.Fatal(err)
		}
		if sc != sg || pc.Measure != pg.Measure {
			t.Fatalf("at %v: chain %v (%v), graph %v (%v)", x, sc, pc.Measure, sg, pg.Measure)
		}
	}
}

// TestSmearCoordinate checks that the split goes to the input the outputs
// depend on, not to the widest one, and to the widest where none matters.
func TestSmearCoordinate(t *testing.T) {
	pick := func(s float64) *nn.Graph {
		return &nn.Graph{InputShape: []int{4}, Nodes: []nn.Node{
			{Op: &nn.Affine{M: &nn.Gather{N: 4, Index: []int{2}}}, Inputs: []int{0}, Shape: []int{1}},
			{Op: &nn.Affine{M: &nn.Scale{S: []float64{s}}}, Inputs: []int{1}, Shape: []int{1}},
		}}
	}
	box := spec.Box{Lo: []float64{-2, -1, -0.5, -1}, Hi: []float64{2, 1, 0.5, 1}}
	d := &graphDecider{f: pick(1), g: pick(1.01), in: spec.Inputs{Box: box}, whole: box}
	if k := d.smearCoordinate(box); k != 2 {
		t.Errorf("smear picks input %d, want 2", k)
	}
	d.g = pick(0)
	d.f = pick(0)
	if k := d.smearCoordinate(box); k != -1 {
		t.Errorf("constant outputs: smear picks input %d, want none", k)
	}
	if a, _, ok := halve(box, box); !ok || a.Hi[0] != 0 {
		t.Errorf("halve: %v, want input 0 halved", a)
	}
}
