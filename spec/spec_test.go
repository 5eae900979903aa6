package spec

import (
	"errors"
	"math"
	"testing"

	"github.com/nnbound/nnbound/quantise"
)

func TestMeasure(t *testing.T) {
	y1, y2 := []float64{1, -2, 3}, []float64{0, 2, 3}
	big := math.MaxFloat64 / 2
	tests := []struct {
		name   string
		q      Quantity
		y1, y2 []float64
		want   float64
	}{
		{"2-norm", Quantity{}, y1, y2, math.Sqrt(17)},
		{"inf-norm", Quantity{Norm: NormInf}, y1, y2, 4},
		{"margin", Quantity{C: []float64{1, 1, 0}}, y1, y2, 3},
		{"overflowing squares", Quantity{}, []float64{big, big}, []float64{-big, -big}, 2 * big * math.Sqrt2},
	}
	for _, tc := range tests {
		if got := tc.q.Measure(tc.y1, tc.y2); math.Abs(got-tc.want) > 1e-12*tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	dr := make([]float64, 3)
	if v := (Quantity{Norm: NormInf}).MeasureGrad(y1, y2, dr); v != 4 || dr[1] != -1 || dr[0] != 0 {
		t.Errorf("inf-norm gradient: got %v, %v", v, dr)
	}
}

func TestParse(t *testing.T) {
	for _, p := range []Pairing{SameInput, Independent, QuantisedInput} {
		if got, err := ParsePairing(p.String()); err != nil || got != p {
			t.Errorf("ParsePairing(%q) = %v, %v", p.String(), got, err)
		}
	}
	for _, n := range []Norm{Norm2, NormInf} {
		if got, err := ParseNorm(n.String()); err != nil || got != n {
			t.Errorf("ParseNorm(%q) = %v, %v", n.String(), got, err)
		}
	}
	if _, err := ParsePairing("both"); !errors.Is(err, ErrInputs) {
		t.Errorf("ParsePairing(both): %v", err)
	}
	if _, err := ParseNorm("1"); !errors.Is(err, ErrQuantity) {
		t.Errorf("ParseNorm(1): %v", err)
	}
}

func TestValidate(t *testing.T) {
	box := Box{Lo: []float64{-1}, Hi: []float64{1}}
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"empty box", Box{}.Validate(), ErrBox},
		{"lengths", Box{Lo: []float64{0}, Hi: []float64{1, 2}}.Validate(), ErrBox},
		{"inverted", Box{Lo: []float64{1}, Hi: []float64{0}}.Validate(), ErrBox},
		{"infinite", Box{Lo: []float64{math.Inf(-1)}, Hi: []float64{0}}.Validate(), ErrBox},
		{"pairing", Inputs{Box: box, Pairing: 7}.Validate(), ErrInputs},
		{"rounding", Inputs{Box: box, Pairing: QuantisedInput, Quant: quantise.Format{Rounding: 9}}.Validate(), ErrInputs},
		{"frac bits", Inputs{Box: box, Pairing: QuantisedInput, Quant: quantise.Format{FracBits: 61}}.Validate(), ErrInputs},
		{"norm", Quantity{Norm: 3}.Validate(), ErrQuantity},
		{"C", Quantity{C: []float64{math.NaN()}}.Validate(), ErrQuantity},
		{"valid", Inputs{Box: box, Pairing: QuantisedInput}.Validate(), nil},
	}
	for _, tc := range tests {
		if !errors.Is(tc.err, tc.want) || (tc.want == nil && tc.err != nil) {
			t.Errorf("%s: got %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if !box.Contains([]float64{0.5}) || box.Contains([]float64{2}) || box.Contains([]float64{0, 0}) {
		t.Error("Contains")
	}
	in := Inputs{Box: box, Pairing: QuantisedInput, Quant: quantise.Format{FracBits: 1}}
	if x2 := in.X2([]float64{0.7}); x2[0] != 0.5 {
		t.Errorf("X2(0.7) = %v, want 0.5", x2)
	}
}

func TestOutputC(t *testing.T) {
	q := Quantity{Norm: Norm2, C: OutputC(3, 1)}
	if got := q.Measure([]float64{5, -2, 7}, []float64{0, 1, 0}); got != 3 {
		t.Errorf("Measure with OutputC(3, 1) = %v, want |(-2) - 1| = 3", got)
	}
	if got, want := q.String(), "|f1_1(x1) - f2_1(x2)|"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	for _, k := range []int{-1, 3} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("OutputC(3, %d) did not panic", k)
				}
			}()
			OutputC(3, k)
		}()
	}
}

func TestBall(t *testing.T) {
	b := Ball([]float64{0.5, 0.01, 0.995, 1.5}, 0.02, 0, 1)
	want := Box{Lo: []float64{0.48, 0, 0.975, 1}, Hi: []float64{0.52, 0.03, 1, 1}}
	for i := range want.Lo {
		if math.Abs(b.Lo[i]-want.Lo[i]) > 1e-15 || math.Abs(b.Hi[i]-want.Hi[i]) > 1e-15 {
			t.Errorf("coordinate %d: [%v, %v], want [%v, %v]", i, b.Lo[i], b.Hi[i], want.Lo[i], want.Hi[i])
		}
	}
	if err := b.Validate(); err != nil {
		t.Error(err)
	}
}
