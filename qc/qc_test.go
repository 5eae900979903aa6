package qc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// randNet returns a network with the given sizes, activation act on the
// hidden layers and normal weights of standard deviation scale.
func randNet(rng *rand.Rand, sizes []int, act nn.Activation, scale float64) *nn.Network {
	net := &nn.Network{}
	for k := 0; k+1 < len(sizes); k++ {
		w := mat.NewDense(sizes[k+1], sizes[k], nil)
		for i := range sizes[k+1] {
			for j := range sizes[k] {
				w.Set(i, j, scale*rng.NormFloat64())
			}
		}
		b := make([]float64, sizes[k+1])
		for i := range b {
			b[i] = scale * rng.NormFloat64()
		}
		a := act
		if k+2 == len(sizes) {
			a = nn.Activation{Kind: nn.Identity}
		}
		net.Layers = append(net.Layers, nn.Layer{W: w, B: b, Act: a})
	}
	return net
}

// perturbed returns a copy of net with every parameter moved by up to eps.
func perturbed(rng *rand.Rand, net *nn.Network, eps float64) *nn.Network {
	c := net.Clone()
	for _, l := range c.Layers {
		r, cols := l.W.Dims()
		for i := range r {
			for j := range cols {
				l.W.Set(i, j, l.W.At(i, j)+eps*(2*rng.Float64()-1))
			}
			l.B[i] += eps * (2*rng.Float64() - 1)
		}
	}
	return c
}

var activations = []nn.Activation{
	{Kind: nn.ReLU},
	{Kind: nn.LeakyReLU, Alpha: 0.1},
	{Kind: nn.Tanh},
	{Kind: nn.Sigmoid},
	{Kind: nn.ELU, Alpha: 1},
	{Kind: nn.HardTanh, Lo: -1, Hi: 1},
}

type pairing struct {
	name  string
	pair  spec.Pairing
	quant quantise.Format
}

var pairings = []pairing{
	{"independent", spec.Independent, quantise.Format{}},
	{"same", spec.SameInput, quantise.Format{}},
	{"quantised-trunc", spec.QuantisedInput, quantise.Format{FracBits: 2}},
	{"quantised-nearest", spec.QuantisedInput, quantise.Format{FracBits: 1, Rounding: quantise.Nearest}},
	{"quantised-floor", spec.QuantisedInput, quantise.Format{FracBits: 3, Rounding: quantise.Floor}},
}

// instance is a pair of networks, an input set, a layout and all the terms
// that hold on it.
type instance struct {
	nets  [2]*nn.Network
	in    spec.Inputs
	l     *Layout
	terms []Term
}

func newInstance(t *testing.T, seed uint64, act nn.Activation, p pairing, eliminate bool) instance {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 99))
	nx := 1 + int(seed%3)
	f1 := randNet(rng, []int{nx, 5, 4, 2}, act, 1)
	var f2 *nn.Network
	switch seed % 3 {
	case 0:
		f2 = perturbed(rng, f1, 0.1)
	case 1:
		// The first layer unchanged (as in neuron pruning): mergeable.
		f2 = perturbed(rng, f1, 0.1)
		f2.Layers[0] = f1.Clone().Layers[0]
	default:
		f2 = randNet(rng, []int{nx, 3, 2}, act, 1) // other depth and widths
	}
	lo, hi := make([]float64, nx), make([]float64, nx)
	for i := range nx {
		lo[i], hi[i] = -1+0.3*rng.Float64(), 0.5+0.5*rng.Float64()
	}
	if seed%4 == 3 && nx > 1 {
		lo[0] = hi[0] // a box of zero width: x1[0] is a constant
	}
	in := spec.Inputs{Box: spec.Box{Lo: lo, Hi: hi}, Pairing: p.pair, Quant: p.quant}
	pb, err := bounds.Pair(f1, f2, in, bounds.Options{Method: bounds.MethodInterval})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Nets: [2]*nn.Network{f1, f2}, X1: make([]Input, nx), X2: make([]Input, nx), MergeIdentical: eliminate,
		DiffCoords: eliminate || seed%2 == 0}
	if lo[0] == hi[0] {
		cfg.X1[0] = Input{Mode: InputFixed, Value: lo[0]}
	}
	if p.pair == spec.SameInput {
		for i := range cfg.X2 {
			cfg.X2[i].Mode = InputSame
		}
	}
	if eliminate {
		for n, nb := range [2]*bounds.Net{pb.Net1, pb.Net2} {
			cfg.Neurons[n] = make([][]Neuron, len(nb.Pre))
			for k, pre := range nb.Pre {
				cfg.Neurons[n][k] = make([]Neuron, len(pre))
				for i, iv := range pre {
					if s, ok := Stable(cfg.Nets[n].Layers[k].Act, iv); ok {
						cfg.Neurons[n][k][i] = s
					}
				}
			}
		}
	}
	l, err := NewLayout(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n := Order(cfg); n != l.Dim {
		t.Errorf("Order %d, layout's order %d", n, l.Dim)
	}
	x2box := in.Box
	if p.pair == spec.QuantisedInput {
		x2box = spec.Box{Lo: in.X2(lo), Hi: in.X2(hi)}
	}
	var ts []Term
	ts = append(ts, InputBox(l, in.Box, x2box)...)
	if p.pair == spec.Independent {
		ts = append(ts, JointInput(l, in.Box, in.Box)...)
	}
	if p.pair == spec.QuantisedInput {
		ts = append(ts, QuantisedInput(l, p.quant)...)
	}
	for n, nb := range [2]*bounds.Net{pb.Net1, pb.Net2} {
		ts = append(ts, Sector(l, n)...)
		ts = append(ts, ReLU(l, n)...)
		ts = append(ts, Cross(l, n)...)
		ts = append(ts, Bounded(l, n)...)
		ts = append(ts, PreBox(l, n, nb.Pre)...)
		ts = append(ts, PostBox(l, n, nb.Post)...)
		ts = append(ts, ReLUTriangle(l, n, nb.Pre, true)...)
	}
	ts = append(ts, SlopePairs(l, PairsAll)...)
	ts = append(ts, DiffSlope(l, [2][][]bounds.Interval{pb.Net1.Pre, pb.Net2.Pre})...)
	ts = append(ts, DiffBox(l, pb.DiffPre, pb.DiffPost)...)
	ts = append(ts, DiffChords(l, pb.DiffPre, true)...)
	return instance{nets: [2]*nn.Network{f1, f2}, in: in, l: l, terms: ts}
}

// samples returns input pairs of the instance's set: the box corners and
// random points (for Independent, x2 drawn independently).
func (ins instance) samples(rng *rand.Rand, n int) [][2][]float64 {
	box := ins.in.Box
	nx := box.Dim()
	var out [][2][]float64
	draw := func(corner int) []float64 {
		x := make([]float64, nx)
		for i := range x {
			switch {
			case corner >= 0 && corner>>i&1 == 0:
				x[i] = box.Lo[i]
			case corner >= 0:
				x[i] = box.Hi[i]
			default:
				x[i] = box.Lo[i] + rng.Float64()*(box.Hi[i]-box.Lo[i])
			}
		}
		return x
	}
	for c := range 1 << nx {
		x1 := draw(c)
		out = append(out, [2][]float64{x1, ins.in.X2(x1)})
	}
	for range n {
		x1 := draw(-1)
		x2 := ins.in.X2(x1)
		if ins.in.Pairing == spec.Independent {
			x2 = draw(-1)
		}
		out = append(out, [2][]float64{x1, x2})
	}
	return out
}

// TestTermsHoldOnSamples evaluates every term at sampled inputs, both as a
// product of forms and as eta^T M eta, for every activation and pairing,
// with and without elimination of stable neurons.
func TestTermsHoldOnSamples(t *testing.T) {
	for ai, act := range activations {
		for pi, p := range pairings {
			for _, elim := range []bool{false, true} {
				name := fmt.Sprintf("%v/%s/elim=%v", act.Kind, p.name, elim)
				t.Run(name, func(t *testing.T) {
					seed := uint64(10*ai + pi)
					ins := newInstance(t, seed, act, p, elim)
					if len(ins.terms) == 0 {
						t.Fatal("no terms")
					}
					rng := rand.New(rand.NewPCG(seed, 7))
					for s, xs := range ins.samples(rng, 60) {
						eta := ins.l.Eta(ins.nets, xs[0], xs[1])
						checkOutputs(t, ins, xs, eta)
						for _, term := range ins.terms {
							checkTerm(t, ins.l, term, eta, s < 2)
						}
					}
				})
			}
		}
	}
}

// checkOutputs compares the output forms with the networks' outputs.
func checkOutputs(t *testing.T, ins instance, xs [2][]float64, eta []float64) {
	t.Helper()
	for n := range 2 {
		y, err := ins.nets[n].Eval(xs[n])
		if err != nil {
			t.Fatal(err)
		}
		for j, f := range ins.l.Nets[n].Out {
			if got := f.Eval(eta); math.Abs(got-y[j]) > 1e-9*(1+math.Abs(y[j])) {
				t.Fatalf("network %d output %d: form gives %v, network %v", n+1, j, got, y[j])
			}
		}
	}
}

// checkTerm checks one term at eta.
func checkTerm(t *testing.T, l *Layout, term Term, eta []float64, matrix bool) {
	t.Helper()
	v := term.Value(eta)
	scale := 1e-9 * (1 + math.Abs(term.A.Eval(eta))) * (1 + math.Abs(term.B.Eval(eta)))
	if matrix {
		m := NewMatrix(l.Dim)
		m.AddTerm(1, term)
		if q := m.Quad(eta); math.Abs(q-v) > scale {
			t.Fatalf("%v %s: eta^T M eta = %v, product = %v", term.Kind, term.Where, q, v)
		}
	}
	switch term.Sign {
	case NonNeg:
		if v < -scale {
			t.Fatalf("%v %s: value %v < 0", term.Kind, term.Where, v)
		}
	case Free:
		if math.Abs(v) > scale {
			t.Fatalf("%v %s: equality value %v != 0", term.Kind, term.Where, v)
		}
	}
}

// TestEveryKindIsBuilt makes sure the sampling test covers every kind.
func TestEveryKindIsBuilt(t *testing.T) {
	seen := map[Kind]bool{}
	for ai, act := range activations {
		for pi, p := range pairings {
			for _, term := range newInstance(t, uint64(10*ai+pi), act, p, false).terms {
				seen[term.Kind] = true
			}
		}
	}
	for _, term := range newInt8Instance(t, 1, 0.6).terms {
		seen[term.Kind] = true
	}
	for k := range numKinds {
		if !seen[k] {
			t.Errorf("no term of kind %v was built", k)
		}
	}
}

func TestSignString(t *testing.T) {
	for s, want := range map[Sign]string{NonNeg: "nonneg", Free: "free", Sign(7): "Sign(7)"} {
		if got := s.String(); got != want {
			t.Errorf("Sign(%d).String() = %q, want %q", int(s), got, want)
		}
	}
}
