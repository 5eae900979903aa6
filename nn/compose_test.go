package nn

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randLayer(rng *rand.Rand, out, in int, act Activation) Layer {
	w := mat.NewDense(out, in, nil)
	for i := range out {
		for j := range in {
			w.Set(i, j, rng.NormFloat64())
		}
	}
	b := make([]float64, out)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	return Layer{W: w, B: b, Act: act}
}

func randVec(rng *rand.Rand, n int, scale float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = scale * rng.NormFloat64()
	}
	return v
}

func mustEval(t *testing.T, layers []Layer, x []float64) []float64 {
	t.Helper()
	y, err := (&Network{Layers: layers}).Eval(x)
	if err != nil {
		t.Fatal(err)
	}
	return y
}

// sameOutputs fails t unless the fused layers give the outputs of the
// original ones at x to a relative 1e-12.
func sameOutputs(t *testing.T, fused, original []Layer, x []float64) {
	t.Helper()
	want := mustEval(t, original, x)
	got := mustEval(t, fused, x)
	for i := range want {
		if !closeTo(got[i], want[i], 1e-12) {
			t.Fatalf("x=%v output %d: fused %v, original %v", x, i, got[i], want[i])
		}
	}
}

func closeTo(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*max(1, math.Abs(a), math.Abs(b))
}

func TestFuseLayers(t *testing.T) {
	id := Activation{Kind: Identity}
	relu := Activation{Kind: ReLU}
	tanh := Activation{Kind: Tanh}
	tests := []struct {
		name       string
		sizes      []int // sizes[0] inputs, then one output size per layer
		acts       []Activation
		wantLayers int
	}{
		{"single affine", []int{3, 2}, []Activation{id}, 1},
		{"affine then relu", []int{3, 4, 2}, []Activation{id, relu}, 1},
		{"three affine", []int{3, 5, 4, 2}, []Activation{id, id, id}, 1},
		{"relu affine relu", []int{3, 4, 6, 2}, []Activation{relu, id, relu}, 2},
		{"trailing affine kept", []int{3, 4, 2}, []Activation{tanh, id}, 2},
		{"mixed", []int{2, 3, 3, 3, 3, 1}, []Activation{id, relu, id, id, tanh}, 2},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var layers []Layer
			for k, a := range tc.acts {
				layers = append(layers, randLayer(rng, tc.sizes[k+1], tc.sizes[k], a))
			}
			fused, err := FuseLayers(layers)
			if err != nil {
				t.Fatal(err)
			}
			if len(fused) != tc.wantLayers {
				t.Fatalf("got %d layers, want %d", len(fused), tc.wantLayers)
			}
			if err := (&Network{Layers: fused}).Validate(); err != nil {
				t.Fatal(err)
			}
			for range 20 {
				sameOutputs(t, fused, layers, randVec(rng, tc.sizes[0], 2))
			}
		})
	}
}

func TestFuseLayersErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	id := Activation{Kind: Identity}
	good := randLayer(rng, 3, 2, id)
	tests := []struct {
		name   string
		layers []Layer
	}{
		{"no weights", []Layer{good, {B: []float64{1}}}},
		{"bias length", []Layer{good, {W: mat.NewDense(1, 3, nil), B: []float64{1, 2}}}},
		{"chain mismatch", []Layer{good, randLayer(rng, 2, 4, id)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := FuseLayers(tc.layers); !errors.Is(err, ErrDimension) {
				t.Fatalf("got %v, want ErrDimension", err)
			}
		})
	}
	if _, err := Compose(randLayer(rng, 2, 2, Activation{Kind: ReLU}), good); err == nil {
		t.Fatal("composing a ReLU layer into the next one: no error")
	}
}

func TestScaleShift(t *testing.T) {
	l, err := ScaleShift([]float64{2, -0.5}, []float64{1, 3})
	if err != nil {
		t.Fatal(err)
	}
	got := mustEval(t, []Layer{l}, []float64{4, 8})
	if got[0] != 9 || got[1] != -1 {
		t.Fatalf("got %v, want [9 -1]", got)
	}
	if _, err := ScaleShift([]float64{1}, nil); !errors.Is(err, ErrDimension) {
		t.Fatalf("got %v, want ErrDimension", err)
	}
}
