package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestUnaryDeriv checks each function's derivative against a central
// difference.
func TestUnaryDeriv(t *testing.T) {
	for _, u := range []Unary{{F: Exp}, {F: Sqrt}, {F: Reciprocal}, {F: Square}, {F: Cube}, {F: Erf}, {F: GELU, C: 1 / math.Sqrt2}} {
		for _, x := range []float64{-2.5, -0.7, 0.3, 1.1, 3} {
			if u.F == Sqrt && x <= 0 {
				continue
			}
			h := 1e-6
			fd := (u.Apply(x+h) - u.Apply(x-h)) / (2 * h)
			if d := u.Deriv(x); math.Abs(d-fd) > 1e-6*max(1, math.Abs(d)) {
				t.Errorf("%s'(%v) = %v, central difference %v", u.Describe(), x, d, fd)
			}
		}
	}
	if err := (Unary{F: GELU, C: math.NaN()}).Validate(); err == nil {
		t.Error("a NaN GELU constant validates")
	}
}

// TestSparseTranspose checks y . M x = M^T y . x for a random sparse map.
func TestSparseTranspose(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	m := &Sparse{N: 7, Start: []int{0}}
	for range 5 {
		for range r.IntN(4) {
			m.Col = append(m.Col, r.IntN(7))
			m.W = append(m.W, r.NormFloat64())
		}
		m.Start = append(m.Start, len(m.Col))
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	x, y := make([]float64, 7), make([]float64, 5)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	for i := range y {
		y[i] = r.NormFloat64()
	}
	mx, mty := make([]float64, 5), make([]float64, 7)
	m.Apply(mx, x)
	m.ApplyTransposed(mty, y)
	a, b := 0.0, 0.0
	for i := range y {
		a += y[i] * mx[i]
	}
	for i := range x {
		b += x[i] * mty[i]
	}
	if math.Abs(a-b) > 1e-12 {
		t.Errorf("y.Mx = %v, M^T y.x = %v", a, b)
	}
	m.Col[0] = 9
	if m.Validate() == nil && len(m.Col) > 0 {
		t.Error("a column outside the input validates")
	}
}
