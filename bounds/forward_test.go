package bounds

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
	"gonum.org/v1/gonum/mat"
)

// forwardPair returns a random ReLU network and, by variant, its copy
// perturbed by 1e-3, in float16, with pruned neurons (removed: the widths
// differ), with zeroed weights, an unrelated network of other widths, or
// one of another depth.
func forwardPair(rng *rand.Rand, variant int) (f, g *nn.Network) {
	relu := nn.Activation{Kind: nn.ReLU}
	sizes := []int{1 + rng.IntN(5)}
	for range 1 + rng.IntN(4) {
		sizes = append(sizes, 2+rng.IntN(11))
	}
	sizes = append(sizes, 1+rng.IntN(3))
	f = boundstest.Network(rng, sizes, 0.3+rng.Float64(), relu)
	switch variant % 6 {
	case 0:
		g = boundstest.Perturb(rng, f, 1e-3)
	case 1:
		g = boundstest.Float16(f)
	case 2:
		g = f.Clone()
		for k := range len(g.Layers) - 1 {
			for i := g.Layers[k].Out() - 1; i >= 0 && g.Layers[k].Out() > 1; i-- {
				if rng.IntN(4) == 0 {
					dropNeuron(g, k, i)
				}
			}
		}
	case 3:
		g = boundstest.Perturb(rng, f, 0.05)
		for _, l := range g.Layers {
			raw := l.W.RawMatrix()
			for i := range raw.Data {
				if rng.IntN(3) == 0 {
					raw.Data[i] = 0
				}
			}
		}
	case 4:
		other := append([]int(nil), sizes...)
		for k := 1; k < len(other)-1; k++ {
			other[k] = 2 + rng.IntN(11)
		}
		g = boundstest.Network(rng, other, 0.5, relu)
	default:
		other := append([]int{sizes[0], 3 + rng.IntN(6)}, sizes[1:]...)
		g = boundstest.Network(rng, other, 0.5, relu)
	}
	return f, g
}

// dropNeuron removes neuron i of hidden layer k of g.
func dropNeuron(g *nn.Network, k, i int) {
	l, next := &g.Layers[k], &g.Layers[k+1]
	r, c := l.W.Dims()
	w := mat.NewDense(r-1, c, nil)
	b := make([]float64, 0, r-1)
	for s, t := 0, 0; s < r; s++ {
		if s == i {
			continue
		}
		w.SetRow(t, l.W.RawRowView(s))
		b = append(b, l.B[s])
		t++
	}
	l.W, l.B = w, b
	nr, _ := next.W.Dims()
	nw := mat.NewDense(nr, r-1, nil)
	for s := range nr {
		for j, t := 0, 0; j < r; j++ {
			if j != i {
				nw.Set(s, t, next.W.At(s, j))
				t++
			}
		}
	}
	next.W = nw
}

// forwardBox returns a random box in n dimensions of half-widths up to
// scale.
func forwardBox(rng *rand.Rand, n int, scale float64) spec.Box {
	b := spec.Box{Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := range n {
		c, r := 2*rng.Float64()-1, scale*rng.Float64()
		b.Lo[i], b.Hi[i] = c-r, c+r
	}
	return b
}

// TestForwardDiffSound checks that g(x) - f(x) lies in the bounds of
// ForwardDiff at the corners of the box and at random points in it, for
// every variant of forwardPair and boxes large and small.
func TestForwardDiffSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 0))
	for trial := range 240 {
		f, g := forwardPair(rng, trial)
		fd, err := NewForwardDiff(f, g)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		box := forwardBox(rng, f.InputSize(), []float64{0.01, 0.3, 2}[trial%3])
		out, err := fd.Bound(box)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		for _, x := range campaignPoints(rng, box) {
			if err := checkForward(f, g, out, x); err != nil {
				t.Fatalf("trial %d (variant %d, sizes %v and %v): %v", trial, trial%6, f.Sizes(), g.Sizes(), err)
			}
		}
	}
}

// checkForward checks that g(x) - f(x), evaluated in float64, lies in out
// up to the evaluation's rounding (near).
func checkForward(f, g *nn.Network, out []Interval, x []float64) error {
	yf, _ := f.Eval(x)
	yg, _ := g.Eval(x)
	for k := range out {
		if d := yg[k] - yf[k]; !near(out[k], d, math.Abs(yf[k])) || math.IsNaN(out[k].Lo) || math.IsNaN(out[k].Hi) {
			return fmt.Errorf("at x=%v: output %d difference %v outside %v", x, k, d, out[k])
		}
	}
	return nil
}

// TestForwardDiffReuse checks that a ForwardDiff gives the same bounds on
// a box whatever boxes it bounded before.
func TestForwardDiffReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 0))
	f, g := forwardPair(rng, 0)
	fd, err := NewForwardDiff(f, g)
	if err != nil {
		t.Fatal(err)
	}
	box := forwardBox(rng, f.InputSize(), 0.1)
	first, _ := fd.Bound(box)
	first = append([]Interval(nil), first...)
	if _, err := fd.Bound(forwardBox(rng, f.InputSize(), 3)); err != nil {
		t.Fatal(err)
	}
	again, _ := fd.Bound(box)
	for k := range first {
		if first[k] != again[k] {
			t.Fatalf("output %d: %v then %v", k, first[k], again[k])
		}
	}
}

// TestForwardDiffMaxSymbols checks that Bound gives up with unbounded
// intervals past MaxSymbols relaxed ReLUs, and not before.
func TestForwardDiffMaxSymbols(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 0))
	f := boundstest.Network(rng, []int{2, 8, 8, 1}, 1, nn.Activation{Kind: nn.ReLU})
	g := boundstest.Perturb(rng, f, 1e-3)
	fd, err := NewForwardDiff(f, g)
	if err != nil {
		t.Fatal(err)
	}
	box := spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}
	out, _ := fd.Bound(box)
	full := out[0]
	used := fd.used - fd.n0
	if used == 0 || math.IsInf(full.Hi, 1) {
		t.Fatalf("no ReLU relaxed (%d) or unbounded %v: pick another network", used, full)
	}
	fd.MaxSymbols = used
	if out, _ = fd.Bound(box); out[0] != full {
		t.Errorf("at the limit: %v, want %v", out[0], full)
	}
	fd.MaxSymbols = used - 1
	if out, _ = fd.Bound(box); !math.IsInf(out[0].Lo, -1) || !math.IsInf(out[0].Hi, 1) {
		t.Errorf("past the limit: %v, want unbounded", out[0])
	}
}

// TestForwardDiffErrors checks the unsupported and invalid cases.
func TestForwardDiffErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 0))
	relu := nn.Activation{Kind: nn.ReLU}
	f := boundstest.Network(rng, []int{2, 4, 1}, 1, relu)
	tanh := boundstest.Network(rng, []int{2, 4, 1}, 1, nn.Activation{Kind: nn.Tanh})
	three := boundstest.Network(rng, []int{3, 4, 1}, 1, relu)
	if _, err := NewForwardDiff(f, tanh); !errors.Is(err, ErrUnsupported) {
		t.Errorf("tanh: got %v, want ErrUnsupported", err)
	}
	quantised := f.Clone()
	quantised.Input = &nn.Quantiser{Scale: []float64{0.01}, Zero: []int64{0}, Lo: nn.Int8Lo, Hi: nn.Int8Hi}
	if _, err := NewForwardDiff(f, quantised); !errors.Is(err, ErrUnsupported) {
		t.Errorf("quantiser: got %v, want ErrUnsupported", err)
	}
	if _, err := NewForwardDiff(f, three); !errors.Is(err, nn.ErrDimension) {
		t.Errorf("input sizes: got %v, want ErrDimension", err)
	}
	if _, err := NewForwardDiff(nil, f); !errors.Is(err, nn.ErrDimension) {
		t.Errorf("nil: got %v, want ErrDimension", err)
	}
	fd, err := NewForwardDiff(f, f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fd.Bound(spec.Box{Lo: []float64{0}, Hi: []float64{1}}); !errors.Is(err, nn.ErrDimension) {
		t.Errorf("box dimension: got %v, want ErrDimension", err)
	}
	if _, err := fd.Bound(spec.Box{Lo: []float64{0, 1}, Hi: []float64{1, 0}}); !errors.Is(err, spec.ErrBox) {
		t.Errorf("inverted box: got %v, want ErrBox", err)
	}
	out, err := fd.Bound(spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}})
	if err != nil || out[0].Lo > 0 || out[0].Hi < 0 || out[0].Width() > 1e-12 {
		t.Errorf("f against itself: %v, %v; want about [0, 0]", out, err)
	}
}

// TestForwardDiffCoefficients checks the coefficients of the difference
// of two linear networks: both forms are the exact difference, whose
// coefficient on x_j is the difference of the products of the weights.
func TestForwardDiffCoefficients(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 0))
	id := nn.Activation{Kind: nn.Identity}
	f := boundstest.Network(rng, []int{3, 4, 2}, 1, id)
	g := boundstest.Perturb(rng, f, 0.1)
	fd, err := NewForwardDiff(f, g)
	if err != nil {
		t.Fatal(err)
	}
	box := forwardBox(rng, 3, 1)
	if _, err := fd.Bound(box); err != nil {
		t.Fatal(err)
	}
	var pf, pg mat.Dense
	pf.Mul(f.Layers[1].W, f.Layers[0].W)
	pg.Mul(g.Layers[1].W, g.Layers[0].W)
	for k := range 2 {
		got := fd.Coefficients(k, box)
		for j := range 3 {
			if want := pg.At(k, j) - pf.At(k, j); math.Abs(got[j]-want) > 1e-12 {
				t.Errorf("output %d input %d: coefficient %v, want %v", k, j, got[j], want)
			}
		}
	}
}
