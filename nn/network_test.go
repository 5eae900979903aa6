package nn

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomNetwork returns a network with the given sizes, standard normal
// parameters and the given activation on every hidden layer.
func randomNetwork(rng *rand.Rand, act Activation, sizes ...int) *Network {
	n := &Network{}
	for k := 1; k < len(sizes); k++ {
		w := mat.NewDense(sizes[k], sizes[k-1], nil)
		b := make([]float64, sizes[k])
		for i := range sizes[k] {
			for j := range sizes[k-1] {
				w.Set(i, j, rng.NormFloat64())
			}
			b[i] = rng.NormFloat64()
		}
		a := act
		if k == len(sizes)-1 {
			a = Activation{Kind: Identity}
		}
		n.Layers = append(n.Layers, Layer{W: w, B: b, Act: a})
	}
	return n
}

func TestEvalBatchMatchesEval(t *testing.T) {
	acts := []Activation{
		{Kind: Identity}, {Kind: ReLU}, {Kind: LeakyReLU, Alpha: 0.1}, {Kind: Tanh},
		{Kind: Sigmoid}, {Kind: ELU, Alpha: 1.5}, {Kind: HardTanh, Lo: -0.5, Hi: 2},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, act := range acts {
		t.Run(act.Kind.String(), func(t *testing.T) {
			n := randomNetwork(rng, act, 3, 7, 5, 2)
			if err := n.Validate(); err != nil {
				t.Fatal(err)
			}
			x := mat.NewDense(9, 3, nil)
			for i := range 9 {
				for j := range 3 {
					x.Set(i, j, 2*rng.NormFloat64())
				}
			}
			y, err := n.EvalBatch(x)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 9 {
				want, err := n.Eval(x.RawRowView(i))
				if err != nil {
					t.Fatal(err)
				}
				for j, v := range want {
					if got := y.At(i, j); got != v {
						t.Errorf("row %d output %d: batch %v, single %v", i, j, got, v)
					}
				}
			}
		})
	}
}

func TestEvalKnownValues(t *testing.T) {
	// y = 2*relu(x0 - x1) - relu(x1 - x0) + 0.5
	n := &Network{Layers: []Layer{
		{W: mat.NewDense(2, 2, []float64{1, -1, -1, 1}), B: []float64{0, 0}, Act: Activation{Kind: ReLU}},
		{W: mat.NewDense(1, 2, []float64{2, -1}), B: []float64{0.5}},
	}}
	for _, tc := range []struct{ x, y []float64 }{
		{[]float64{0, 0}, []float64{0.5}},
		{[]float64{1, -1}, []float64{4.5}},
		{[]float64{-0.5, 0.25}, []float64{-0.25}},
	} {
		got, err := n.Eval(tc.x)
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != tc.y[0] {
			t.Errorf("f(%v) = %v, want %v", tc.x, got, tc.y)
		}
	}
}

func TestDimensionErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := randomNetwork(rng, Activation{Kind: ReLU}, 3, 4, 2)
	if _, err := n.Eval([]float64{1, 2}); !errors.Is(err, ErrDimension) {
		t.Errorf("Eval with 2 inputs: err = %v, want ErrDimension", err)
	}
	if _, err := n.EvalBatch(mat.NewDense(2, 4, nil)); !errors.Is(err, ErrDimension) {
		t.Errorf("EvalBatch with 4 columns: err = %v, want ErrDimension", err)
	}
	other := randomNetwork(rng, Activation{Kind: ReLU}, 3, 5, 2)
	if _, err := ParamDiff(n, other); !errors.Is(err, ErrDimension) {
		t.Errorf("ParamDiff of different shapes: err = %v, want ErrDimension", err)
	}
	if err := SameShape(n, randomNetwork(rng, Activation{Kind: ReLU}, 3, 4, 2, 1)); !errors.Is(err, ErrDimension) {
		t.Errorf("SameShape of different depths: err = %v, want ErrDimension", err)
	}
}

func TestValidate(t *testing.T) {
	good := func() *Network {
		return randomNetwork(rand.New(rand.NewPCG(5, 6)), Activation{Kind: ReLU}, 2, 3, 1)
	}
	for _, tc := range []struct {
		name   string
		mutate func(n *Network)
		want   error
	}{
		{"ok", func(*Network) {}, nil},
		{"no layers", func(n *Network) { n.Layers = nil }, ErrDimension},
		{"nil weights", func(n *Network) { n.Layers[1].W = nil }, ErrDimension},
		{"short bias", func(n *Network) { n.Layers[0].B = n.Layers[0].B[:2] }, ErrDimension},
		{"layers do not chain", func(n *Network) { n.Layers[1].W = mat.NewDense(1, 2, nil) }, ErrDimension},
		{"NaN weight", func(n *Network) { n.Layers[0].W.Set(1, 1, math.NaN()) }, ErrNotFinite},
		{"Inf bias", func(n *Network) { n.Layers[1].B[0] = math.Inf(-1) }, ErrNotFinite},
		{"NaN alpha", func(n *Network) { n.Layers[0].Act = Activation{Kind: LeakyReLU, Alpha: math.NaN()} }, ErrNotFinite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := good()
			tc.mutate(n)
			err := n.Validate()
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	n := good()
	n.Layers[0].Act = Activation{Kind: HardTanh, Lo: 1, Hi: -1}
	if n.Validate() == nil {
		t.Error("inverted hardtanh accepted")
	}
}

func TestShapeHelpers(t *testing.T) {
	n := randomNetwork(rand.New(rand.NewPCG(7, 8)), Activation{Kind: ReLU}, 5, 50, 50, 5)
	if got, want := n.NumParams(), 50*6+50*51+5*51; got != want {
		t.Errorf("NumParams = %d, want %d", got, want)
	}
	if got := n.Sizes(); len(got) != 4 || got[0] != 5 || got[1] != 50 || got[3] != 5 {
		t.Errorf("Sizes = %v", got)
	}
	if got := n.HiddenSizes(); len(got) != 2 || got[0] != 50 || got[1] != 50 {
		t.Errorf("HiddenSizes = %v", got)
	}
}

func TestParamDiff(t *testing.T) {
	a := randomNetwork(rand.New(rand.NewPCG(9, 10)), Activation{Kind: ReLU}, 2, 3, 1)
	b := a.Clone()
	if !Equal(a, b) {
		t.Fatal("clone differs")
	}
	b.Layers[0].W.Set(0, 1, 0)
	b.Layers[1].B[0] += 0.25
	b.Layers[1].Act = Activation{Kind: Tanh}
	d, err := ParamDiff(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if d.Params != 13 || d.Changed != 2 || d.Zeroed != 1 || d.Activations != 1 {
		t.Errorf("diff = %+v", d)
	}
	if want := math.Max(math.Abs(a.Layers[0].W.At(0, 1)), 0.25); d.MaxAbs != want {
		t.Errorf("MaxAbs = %v, want %v", d.MaxAbs, want)
	}
	if Equal(a, b) {
		t.Error("Equal after changes")
	}
}

func TestParseActivationKind(t *testing.T) {
	for k := Identity; k <= HardTanh; k++ {
		got, err := ParseActivationKind(k.String())
		if err != nil || got != k {
			t.Errorf("ParseActivationKind(%q) = %v, %v", k.String(), got, err)
		}
	}
	if got, err := ParseActivationKind("linear"); err != nil || got != Identity {
		t.Errorf("linear = %v, %v", got, err)
	}
	if _, err := ParseActivationKind("softmax"); err == nil {
		t.Error("softmax accepted")
	}
}

func BenchmarkEvalBatch(b *testing.B) {
	n := randomNetwork(rand.New(rand.NewPCG(11, 12)), Activation{Kind: ReLU}, 5, 50, 50, 50, 50, 50, 50, 5)
	x := mat.NewDense(1000, 5, nil)
	for b.Loop() {
		if _, err := n.EvalBatch(x); err != nil {
			b.Fatal(err)
		}
	}
}
