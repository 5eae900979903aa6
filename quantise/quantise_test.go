package quantise

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/jsonnet"
)

func isRange(err error) bool { return errors.Is(err, ErrRange) }

func contains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }

// tinyNet is a 2-2-1 network with a few awkward parameters.
func tinyNet() *nn.Network {
	return &nn.Network{Layers: []nn.Layer{
		{W: mat.NewDense(2, 2, []float64{0.3, -0.3, 1.875, -7.9}), B: []float64{0.125, -0.624}, Act: nn.Activation{Kind: nn.ReLU}},
		{W: mat.NewDense(1, 2, []float64{2.5, -2.5}), B: []float64{15.9}},
	}}
}

func TestRoundingModes(t *testing.T) {
	for _, tc := range []struct {
		r    Rounding
		in   []float64
		want []float64
	}{
		{Trunc, []float64{0.3, -0.3, 0.375, -0.375, 0.25, 2.99}, []float64{0.25, -0.25, 0.25, -0.25, 0.25, 2.75}},
		{Nearest, []float64{0.3, -0.3, 0.375, -0.375, 0.125, 0.625}, []float64{0.25, -0.25, 0.5, -0.5, 0, 0.5}},
		{Floor, []float64{0.3, -0.3, 0.375, -0.375, -0.25, -0.01}, []float64{0.25, -0.5, 0.25, -0.5, -0.25, -0.25}},
	} {
		f := Format{FracBits: 2, Rounding: tc.r}
		for i, x := range tc.in {
			if got := f.Round(x); got != tc.want[i] {
				t.Errorf("%v: Round(%v) = %v, want %v", tc.r, x, got, tc.want[i])
			}
		}
	}
}

func TestRoundHuge(t *testing.T) {
	for _, x := range []float64{1e308, -math.MaxFloat64, 1 << 52, math.Ldexp(1, 60) + 4096} {
		for _, r := range []Rounding{Trunc, Nearest, Floor} {
			if got := (Format{FracBits: 52, Rounding: r}).Round(x); got != x {
				t.Errorf("%v: Round(%v) = %v", r, x, got)
			}
		}
	}
	if got := (Format{FracBits: 1}).Round(math.Ldexp(1, 52) - 0.75); got != math.Ldexp(1, 52)-1 {
		t.Errorf("Round(2^52 - 0.75) = %v", got)
	}
}

func TestFormatValidate(t *testing.T) {
	for _, tc := range []struct {
		f  Format
		ok bool
	}{
		{Format{FracBits: 2}, true},
		{Format{FracBits: 52, IntBits: 11}, true},
		{Format{FracBits: 0}, false},
		{Format{FracBits: 60}, false},
		{Format{FracBits: 8, IntBits: -1}, false},
		{Format{FracBits: 40, IntBits: 30}, false},
		{Format{FracBits: 4, Rounding: Rounding(7)}, false},
		{Format{FracBits: 4, Saturate: true}, false},
		{Format{FracBits: 4, IntBits: 3, Saturate: true}, true},
	} {
		if err := tc.f.Validate(); (err == nil) != tc.ok {
			t.Errorf("%v: Validate() = %v", tc.f, err)
		} else if err != nil && !errors.Is(err, ErrFormat) {
			t.Errorf("%v: %v does not wrap ErrFormat", tc.f, err)
		}
	}
}

func TestNetwork(t *testing.T) {
	net := tinyNet()
	f := Format{FracBits: 2}
	q, err := Network(net, Options{Weights: f, Biases: f})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.25, -0.25, 1.75, -7.75}
	if got := q.Layers[0].W.RawMatrix().Data; !equal(got, want) {
		t.Errorf("weights %v, want %v", got, want)
	}
	if got := q.Layers[1].B; got[0] != 15.75 {
		t.Errorf("bias %v", got)
	}
	if net.Layers[0].W.At(0, 0) != 0.3 {
		t.Error("original modified")
	}

	// Per-layer formats: layer 0 weights FB=1, biases FB=3; layer 1 untouched grid.
	q, err = Network(net, Options{Layers: []LayerFormats{
		{Weights: Format{FracBits: 1}, Biases: Format{FracBits: 3}},
		{Weights: Format{FracBits: 52}, Biases: Format{FracBits: 52}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := q.Layers[0].W.RawMatrix().Data; !equal(got, []float64{0, 0, 1.5, -7.5}) {
		t.Errorf("per-layer weights %v", got)
	}
	if got := q.Layers[0].B; !equal(got, []float64{0.125, -0.5}) {
		t.Errorf("per-layer biases %v", got)
	}
	if got := q.Layers[1].B[0]; got != 15.9 {
		t.Errorf("FB=52 changed 15.9 to %v", got)
	}
	if _, err := Network(net, Options{Layers: []LayerFormats{{}}}); !errors.Is(err, ErrFormat) {
		t.Errorf("1 layer format for 2 layers: err = %v", err)
	}
}

func TestRange(t *testing.T) {
	net := tinyNet()
	// <3,2>: limit 7.75. Weight -7.9 truncates to -7.75 (in range); bias 15.9 is out.
	f := Format{IntBits: 3, FracBits: 2}
	_, err := Network(net, Options{Weights: f, Biases: f})
	if !isRange(err) || !contains(err, "layer 1 biases: 1 value out of the range of <3,2> trunc (largest magnitude 15.9, limit 7.75)") {
		t.Errorf("err = %v", err)
	}
	// Nearest rounds -7.9 to -8, out of range.
	f.Rounding = Nearest
	_, err = Network(net, Options{Weights: f, Biases: Format{FracBits: 2}})
	if !isRange(err) || !contains(err, "layer 0 weights: 1 value out of the range") {
		t.Errorf("err = %v", err)
	}
	f = Format{IntBits: 2, FracBits: 2, Saturate: true}
	q, err := Network(net, Options{Weights: f, Biases: f})
	if err != nil {
		t.Fatal(err)
	}
	if got := q.Layers[0].W.RawMatrix().Data; !equal(got, []float64{0.25, -0.25, 1.75, -3.75}) {
		t.Errorf("saturated weights %v", got)
	}
	if got := q.Layers[1].B[0]; got != 3.75 {
		t.Errorf("saturated bias %v", got)
	}
}

func TestVector(t *testing.T) {
	got, err := Vector([]float64{-1, -0.55, 0, 0.3, 1}, Format{FracBits: 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{-1, -0.5, 0, 0.25, 1}; !equal(got, want) {
		t.Errorf("Vector = %v, want %v", got, want)
	}
	if _, err := Vector([]float64{0, math.NaN()}, Format{FracBits: 2}); !errors.Is(err, nn.ErrNotFinite) {
		t.Errorf("NaN input: err = %v", err)
	}
	if _, err := Vector([]float64{0, 9}, Format{FracBits: 2, IntBits: 3}); !isRange(err) {
		t.Errorf("out of range input: err = %v", err)
	}
	if _, err := Vector([]float64{0}, Format{}); !errors.Is(err, ErrFormat) {
		t.Errorf("zero format: err = %v", err)
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPaperPairs reproduces the authors' stored quantised pair
// (history_quant) and the derived Q2D/Q3D partners with FB = 2, trunc.
func TestPaperPairs(t *testing.T) {
	dir := sharedtest.Path(t, "data", "networks", "paper")
	f := Format{FracBits: 2, Rounding: Trunc}
	for _, p := range [][2]string{
		{"history_quant_nn1", "history_quant_nn2"},
		{"q2d_nn1", "q2d_nn2_fb2"},
		{"q3d_nn1", "q3d_nn2_fb2"},
	} {
		orig, err := jsonnet.Read(filepath.Join(dir, p[0]+".json"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := jsonnet.Read(filepath.Join(dir, p[1]+".json"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Network(orig, Options{Weights: f, Biases: f})
		if err != nil {
			t.Fatal(err)
		}
		if d, err := nn.ParamDiff(want, got); err != nil || d.Changed != 0 || d.Activations != 0 {
			t.Errorf("%s: quantised copy differs from %s: %+v %v", p[0], p[1], d, err)
		}
	}
}

// TestInt8OptionsString names the width, the weight scales and the
// activation ranges.
func TestInt8OptionsString(t *testing.T) {
	if got, want := DefaultInt8Options().String(), "int8: per-tensor weights, asymmetric activations"; got != want {
		t.Errorf("default: %q, want %q", got, want)
	}
	o := Int8Options{Bits: 4, PerChannel: true, Symmetric: true}
	if got, want := o.String(), "int4: per-channel weights, symmetric activations"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
