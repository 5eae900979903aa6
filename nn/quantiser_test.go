package nn

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestQuantiserApply checks rounding half to even, the zero point, the
// saturation at both ends and the float32 path against hand-computed values.
func TestQuantiserApply(t *testing.T) {
	q := &Quantiser{Scale: []float64{0.5}, Zero: []int64{3}, Lo: Uint8Lo, Hi: Uint8Hi}
	for _, c := range []struct{ v, want float64 }{
		{0, 0}, {0.25, 0}, {0.75, 1}, {0.3, 0.5}, {-0.25, 0}, {-0.75, -1},
		{-1.5, -1.5}, {-2, -1.5}, {-100, -1.5}, // k = 0 at -1.5: saturated
		{126, 126}, {126.5, 126}, {1e9, 126}, // k = 255 at 126
		{math.Inf(1), 126}, {math.Inf(-1), -1.5},
	} {
		if got := q.Apply(0, c.v); got != c.want {
			t.Errorf("q(%v) = %v, want %v", c.v, got, c.want)
		}
		if got := q.Apply32(0, float32(c.v)); float64(got) != c.want {
			t.Errorf("q32(%v) = %v, want %v", c.v, got, c.want)
		}
	}
	if lo, hi := q.Range(0); lo != -1.5 || hi != 126 {
		t.Fatalf("range [%v, %v], want [-1.5, 126]", lo, hi)
	}
}

// TestQuantiserValidate checks each ill-formed quantiser is an error.
func TestQuantiserValidate(t *testing.T) {
	ok := Quantiser{Scale: []float64{1, 2}, Zero: []int64{0, 1}, Lo: Int8Lo, Hi: Int8Hi}
	if err := ok.Validate(2); err != nil {
		t.Fatal(err)
	}
	for name, q := range map[string]Quantiser{
		"zero scale":     {Scale: []float64{0}, Zero: []int64{0}, Lo: 0, Hi: 255},
		"negative scale": {Scale: []float64{-1}, Zero: []int64{0}, Lo: 0, Hi: 255},
		"NaN scale":      {Scale: []float64{math.NaN()}, Zero: []int64{0}, Lo: 0, Hi: 255},
		"zero point":     {Scale: []float64{1}, Zero: []int64{256}, Lo: 0, Hi: 255},
		"range":          {Scale: []float64{1}, Zero: []int64{0}, Lo: 0, Hi: 0},
		"lengths":        {Scale: []float64{1, 1}, Zero: []int64{0}, Lo: 0, Hi: 255},
		"values":         {Scale: []float64{1, 1, 1}, Zero: []int64{0, 0, 0}, Lo: 0, Hi: 255},
	} {
		if err := q.Validate(2); !errors.Is(err, ErrQuantiser) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestQuantisedNetwork checks Eval applies the quantisers where they sit,
// Clone copies them and RequirePlain refuses the network.
func TestQuantisedNetwork(t *testing.T) {
	net := &Network{Layers: []Layer{AffineLayer(mat.NewDense(1, 1, []float64{1}), []float64{0.125})}}
	y, _ := net.Eval([]float64{0.25})
	if y[0] != 0.375 || net.RequirePlain("x") != nil {
		t.Fatalf("plain: %v", y)
	}
	q := &Quantiser{Scale: []float64{0.25}, Zero: []int64{0}, Lo: Int8Lo, Hi: Int8Hi}
	net.Input = q
	net.Layers[0].Post = q
	c := net.Clone()
	y, _ = c.Eval([]float64{0.3}) // q(0.3) = 0.25, + 0.125 = 0.375, q(0.375) = 0.5 (half to even: 1.5 -> 2)
	if y[0] != 0.5 || !Equal(c, net) {
		t.Fatalf("quantised: %v", y)
	}
	if err := net.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := c.RequirePlain("the test"); !errors.Is(err, ErrQuantised) {
		t.Fatal(err)
	}
}
