package nn

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// testChain returns a chain with a convolution, quantisers and dense
// layers: 1x6x6 -> conv 3x3 (2 channels, stride 2, pad 1) -> relu ->
// dense 18 -> 5 tanh -> dense 5 -> 3.
func testChain(rng *rand.Rand) *Network {
	conv := &Conv2D{InC: 1, InH: 6, InW: 6, OutC: 2, OutH: 3, OutW: 3, KH: 3, KW: 3,
		Stride: [2]int{2, 2}, Pad: [2]int{1, 1}, Dil: [2]int{1, 1}, Groups: 1, Kernel: randVec(rng, 18, 1)}
	q := &Quantiser{Scale: []float64{0.05}, Zero: []int64{3}, Lo: Uint8Lo, Hi: Uint8Hi}
	return &Network{
		Input: &Quantiser{Scale: []float64{1.0 / 255}, Zero: []int64{0}, Lo: Uint8Lo, Hi: Uint8Hi},
		Layers: []Layer{
			{Conv: conv, B: randVec(rng, 18, 1), Act: Activation{Kind: ReLU}, Post: q},
			{W: mat.NewDense(5, 18, randVec(rng, 90, 1)), B: randVec(rng, 5, 1), Act: Activation{Kind: Tanh}, Pre: q},
			{W: mat.NewDense(3, 5, randVec(rng, 15, 1)), B: randVec(rng, 3, 1), Act: Activation{Kind: Identity}},
		},
	}
}

// TestGraphOfChain checks that a chain's graph evaluates as the chain and
// converts back to the same chain.
func TestGraphOfChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	net := testChain(rng)
	if err := net.Validate(); err != nil {
		t.Fatal(err)
	}
	g := net.Graph()
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	back, err := g.Chain()
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		x := randVec(rng, 36, 1)
		for i := range x {
			x[i] = math.Abs(x[i])
		}
		want, _ := net.Eval(x)
		got, err := g.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := back.Eval(x)
		if !slices.Equal(got, want) || !slices.Equal(again, want) {
			t.Fatalf("graph %v, chain again %v, want %v", got, again, want)
		}
	}
	if !Equal(back, net) {
		t.Error("the graph's chain differs from the chain")
	}
}

// TestGraphOps checks each graph operation against its definition written
// out by hand: a residual join, a concatenation, max and average pooling
// (with padding), a selection and a scaling.
func TestGraphOps(t *testing.T) {
	x := []float64{ // 1 channel, 3x3
		1, -2, 3,
		-4, 5, -6,
		7, -8, 9,
	}
	pool := Pool2D{C: 1, InH: 3, InW: 3, OutH: 2, OutW: 2, KH: 2, KW: 2, Stride: [2]int{2, 2}, Pad: [2]int{0, 0}, Dil: [2]int{1, 1}}
	padded := pool
	padded.Pad = [2]int{1, 1}
	cases := []struct {
		name string
		g    *Graph
		want []float64
	}{
		{"maxpool ceil", &Graph{InputShape: []int{1, 3, 3}, Nodes: []Node{
			{Op: &MaxPool{pool}, Inputs: []int{0}, Shape: []int{1, 2, 2}}}},
			[]float64{5, 3, 7, 9}},
		{"maxpool padded", &Graph{InputShape: []int{1, 3, 3}, Nodes: []Node{
			{Op: &MaxPool{padded}, Inputs: []int{0}, Shape: []int{1, 2, 2}}}},
			[]float64{1, 3, 7, 9}},
		{"avgpool count pad", &Graph{InputShape: []int{1, 3, 3}, Nodes: []Node{
			{Op: &Affine{M: &AvgPool2D{padded, true}}, Inputs: []int{0}, Shape: []int{1, 2, 2}}}},
			[]float64{0.25, 0.25, 0.75, 0}},
		{"avgpool no pad", &Graph{InputShape: []int{1, 3, 3}, Nodes: []Node{
			{Op: &Affine{M: &AvgPool2D{padded, false}}, Inputs: []int{0}, Shape: []int{1, 2, 2}}}},
			[]float64{1, 0.5, 1.5, 0}},
		{"residual", &Graph{InputShape: []int{9}, Nodes: []Node{
			{Op: Act{Activation{Kind: ReLU}}, Inputs: []int{0}, Shape: []int{9}},
			{Op: Add{}, Inputs: []int{0, 1}, Shape: []int{9}},
			{Op: Add{Negate: true}, Inputs: []int{2, 0}, Shape: []int{9}}}},
			[]float64{1, 0, 3, 0, 5, 0, 7, 0, 9}},
		{"concat gather scale", &Graph{InputShape: []int{9}, Nodes: []Node{
			{Op: &Affine{M: &Gather{N: 9, Index: []int{8, -1, 0}}, B: []float64{0, 10, 0}}, Inputs: []int{0}, Shape: []int{3}},
			{Op: &Affine{M: &Scale{[]float64{2, 3, 4, 5, 6, 7, 8, 9, 10}}}, Inputs: []int{0}, Shape: []int{9}},
			{Op: Concat{}, Inputs: []int{1, 2}, Shape: []int{12}}}},
			[]float64{9, 10, 1, 2, -6, 12, -20, 30, -42, 56, -72, 90}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.g.Validate(); err != nil {
				t.Fatal(err)
			}
			got, err := c.g.Eval(x)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestLinearTransposed checks ApplyTransposed against Apply: y.(M x) =
// (M^T y).x for every Linear, and AbsMap against |M|.
func TestLinearTransposed(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pool := Pool2D{C: 2, InH: 5, InW: 4, OutH: 3, OutW: 2, KH: 3, KW: 2, Stride: [2]int{2, 2}, Pad: [2]int{1, 0}, Dil: [2]int{1, 1}}
	maps := []Linear{
		DenseMap{mat.NewDense(3, 40, randVec(rng, 120, 1))},
		&Conv2D{InC: 2, InH: 5, InW: 4, OutC: 4, OutH: 3, OutW: 2, KH: 3, KW: 2, Stride: [2]int{2, 2},
			Pad: [2]int{1, 0}, Dil: [2]int{1, 1}, Groups: 2, Kernel: randVec(rng, 24, 1)},
		&AvgPool2D{pool, false},
		&AvgPool2D{pool, true},
		&Gather{N: 40, Index: []int{3, -1, 39, 3}},
		&Scale{randVec(rng, 40, 1)},
	}
	for _, m := range maps {
		if err := m.Validate(); err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		x, y := randVec(rng, m.In(), 1), randVec(rng, m.Out(), 1)
		mx, mty := make([]float64, m.Out()), make([]float64, m.In())
		m.Apply(mx, x)
		m.ApplyTransposed(mty, y)
		if a, b := dot(y, mx), dot(mty, x); math.Abs(a-b) > 1e-12 {
			t.Errorf("%T: y.(M x) = %v, (M^T y).x = %v", m, a, b)
		}
		w, abs := denseOf(m), denseOf(m.AbsMap())
		for i := range m.Out() {
			for j := range m.In() {
				if math.Abs(w.At(i, j)) != abs.At(i, j) {
					t.Fatalf("%T: |M|(%d,%d) = %v, M = %v", m, i, j, abs.At(i, j), w.At(i, j))
				}
			}
		}
	}
}

// dot returns the inner product of a and b.
func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestGraphNotChain checks that Chain refuses a join and names the node.
func TestGraphNotChain(t *testing.T) {
	g := &Graph{InputShape: []int{2}, Nodes: []Node{
		{Op: Act{Activation{Kind: ReLU}}, Inputs: []int{0}, Shape: []int{2}},
		{Op: Add{}, Inputs: []int{0, 1}, Shape: []int{2}, Name: "join"}}}
	if _, err := g.Chain(); !errors.Is(err, ErrNotChain) {
		t.Fatalf("got %v, want ErrNotChain", err)
	}
	bad := &Graph{InputShape: []int{2}, Nodes: []Node{{Op: Add{}, Inputs: []int{0, 1}, Shape: []int{2}}}}
	if err := bad.Validate(); !errors.Is(err, ErrDimension) {
		t.Fatalf("a node reading itself: got %v, want ErrDimension", err)
	}
}

// TestParamDiffGraph checks that a chain's graphs differ as the chains do.
func TestParamDiffGraph(t *testing.T) {
	a := &Network{Layers: []Layer{
		{W: mat.NewDense(2, 2, []float64{1, -2, 0.5, 3}), B: []float64{0.1, 0}, Act: Activation{Kind: ReLU}},
		{W: mat.NewDense(1, 2, []float64{2, 1}), B: []float64{-1}, Act: Activation{Kind: Identity}},
	}}
	b := a.Clone()
	b.Layers[0].W.Set(0, 1, 0)
	b.Layers[1].B[0] = -1.25
	b.Layers[0].Act = Activation{Kind: LeakyReLU, Alpha: 0.1}
	want, err := ParamDiff(a, b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParamDiffGraph(a.Graph(), b.Graph())
	if err != nil {
		t.Fatal(err)
	}
	if got != want || got.Changed != 2 || got.Zeroed != 1 || got.Activations != 1 {
		t.Errorf("graph diff %+v, chain diff %+v", got, want)
	}
	c := b.Clone()
	c.Layers = c.Layers[:1]
	if _, err := ParamDiffGraph(a.Graph(), c.Graph()); !errors.Is(err, ErrDimension) {
		t.Errorf("different graphs: %v", err)
	}
}

// TestGraphChainRepeatedQuantiser checks that Chain reads a quantiser
// repeated with the same parameters (PyTorch's quantised Flatten) as one,
// with the same outputs, and refuses two different ones in a row.
func TestGraphChainRepeatedQuantiser(t *testing.T) {
	q := &Quantiser{Scale: []float64{0.1}, Zero: []int64{3}, Lo: Uint8Lo, Hi: Uint8Hi}
	r := &Quantiser{Scale: []float64{0.2}, Zero: []int64{3}, Lo: Uint8Lo, Hi: Uint8Hi}
	w := mat.NewDense(2, 2, []float64{1, -2, 0.5, 3})
	graph := func(second *Quantiser) *Graph {
		return &Graph{InputShape: []int{2}, Nodes: []Node{
			{Op: &Affine{M: DenseMap{w}, B: []float64{0.05, -0.3}}, Inputs: []int{0}, Shape: []int{2}},
			{Op: Act{Activation{Kind: ReLU}}, Inputs: []int{1}, Shape: []int{2}},
			{Op: &Quantise{q}, Inputs: []int{2}, Shape: []int{2}},
			{Op: &Quantise{second}, Inputs: []int{3}, Shape: []int{2}}}}
	}
	g := graph(q)
	net, err := g.Chain()
	if err != nil {
		t.Fatal(err)
	}
	if len(net.Layers) != 1 || !net.Layers[0].Post.Equal(q) {
		t.Fatalf("got %d layers, want one with q after its activation", len(net.Layers))
	}
	for _, x := range [][]float64{{0.3, -0.7}, {1.234, 0.5}, {-2, 2}, {9, 9}} {
		yg, err := g.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		yn, err := net.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		for i := range yg {
			if yg[i] != yn[i] {
				t.Fatalf("x = %v: graph %v, chain %v", x, yg, yn)
			}
		}
	}
	if _, err := graph(r).Chain(); !errors.Is(err, ErrNotChain) {
		t.Fatalf("two different quantisers: got %v, want ErrNotChain", err)
	}
}

// TestNumParamsConvBias checks that a convolution's bias counts once per
// channel when it is the same over the channel's positions (a model's
// bias), and once per output otherwise.
func TestNumParamsConvBias(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 3))
	net := testChain(rng)
	dense := 5*18 + 5 + 3*5 + 3
	if got, want := net.Graph().NumParams(), 18+18+dense; got != want {
		t.Errorf("bias per position: %d parameters, want %d", got, want)
	}
	b := net.Layers[0].B
	for i := range b {
		b[i] = float64(i / 9) // one value per channel of 3x3 positions
	}
	if got, want := net.Graph().NumParams(), 18+2+dense; got != want {
		t.Errorf("bias per channel: %d parameters, want %d", got, want)
	}
}
