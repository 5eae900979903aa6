package spec

import (
	"errors"
	"fmt"
	"math"
)

// ErrQuantity reports an ill-formed Quantity.
var ErrQuantity = errors.New("invalid quantity")

// Norm is the norm of the output error f1(x1) - f2(x2).
type Norm int

// The norms.
const (
	Norm2   Norm = iota // Euclidean norm (the paper's)
	NormInf             // largest absolute component
	// PerOutput compares each output's difference with a tolerance of
	// its own, |d_k| < eps_k (the VNN-LIB form): the norm of a
	// verification tolerance (Tolerance), not of a Quantity.
	PerOutput
)

var normNames = [...]string{"2", "inf", "per-output"}

// String returns the norm's name: "2", "inf" or "per-output".
func (n Norm) String() string {
	if n < 0 || int(n) >= len(normNames) {
		return fmt.Sprintf("Norm(%d)", int(n))
	}
	return normNames[n]
}

// ParseNorm returns the norm named s ("2", "inf" or "per-output").
func ParseNorm(s string) (Norm, error) {
	for i, n := range normNames {
		if n == s {
			return Norm(i), nil
		}
	}
	return 0, fmt.Errorf("spec: unknown norm %q (want 2, inf or per-output): %w", s, ErrQuantity)
}

// Quantity is what is bounded of the output difference d = y1 - y2:
// |C^T d| when C is not nil (its length is the number of outputs), else
// ||d|| in Norm.
type Quantity struct {
	Norm Norm
	C    []float64
}

// OutputC returns the C of a Quantity that bounds output k of n alone,
// the unit vector e_k:
//
//	|C^T d| = |d_k| = |f1_k(x1) - f2_k(x2)|
//
// It panics unless 0 <= k < n (a caller checks an index given by a user).
func OutputC(n, k int) []float64 {
	if k < 0 || k >= n {
		panic(fmt.Sprintf("spec: output %d of %d", k, n))
	}
	c := make([]float64, n)
	c[k] = 1
	return c
}

// String names the quantity: "||f1(x1) - f2(x2)||_2",
// "||f1(x1) - f2(x2)||_inf", "|f1_k(x1) - f2_k(x2)|" for C = e_k, or
// "|c^T (f1(x1) - f2(x2))|".
func (q Quantity) String() string {
	if q.C != nil {
		k := -1
		for j, v := range q.C {
			switch {
			case v == 0:
			case v == 1 && k == -1:
				k = j
			default:
				return "|c^T (f1(x1) - f2(x2))|"
			}
		}
		if k >= 0 {
			return fmt.Sprintf("|f1_%d(x1) - f2_%d(x2)|", k, k)
		}
		return "|c^T (f1(x1) - f2(x2))|"
	}
	if q.Norm == NormInf {
		return "||f1(x1) - f2(x2)||_inf"
	}
	return "||f1(x1) - f2(x2)||_2"
}

// Validate reports an unknown norm or a non-finite weight of C, naming it.
func (q Quantity) Validate() error {
	if q.Norm == PerOutput {
		return fmt.Errorf("spec: norm per-output is a verification tolerance's, not a quantity's (want 2 or inf): %w", ErrQuantity)
	}
	if q.Norm < Norm2 || q.Norm > NormInf {
		return fmt.Errorf("spec: unknown norm %d: %w", int(q.Norm), ErrQuantity)
	}
	for j, c := range q.C {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("spec: C[%d] = %v, want finite: %w", j, c, ErrQuantity)
		}
	}
	return nil
}

// Measure returns the quantity of the outputs y1, y2 in float64: |C^T (y1 -
// y2)| when C is set, else ||y1 - y2|| in Norm (the 2-norm rescaled where
// the squares overflow).
func (q Quantity) Measure(y1, y2 []float64) float64 {
	return q.MeasureGrad(y1, y2, nil)
}

// MeasureGrad returns Measure(y1, y2) and, when dr is not nil, stores in it
// a (sub)gradient of the quantity with respect to y1 - y2.
func (q Quantity) MeasureGrad(y1, y2, dr []float64) float64 {
	if q.C != nil {
		s := 0.0
		for j, c := range q.C {
			s += c * (y1[j] - y2[j])
		}
		if dr != nil {
			for j, c := range q.C {
				dr[j] = math.Copysign(1, s) * c
			}
		}
		return math.Abs(s)
	}
	if q.Norm == NormInf {
		best, arg := -1.0, 0
		for j := range y1 {
			if d := math.Abs(y1[j] - y2[j]); d > best {
				best, arg = d, j
			}
		}
		if dr != nil {
			clear(dr)
			dr[arg] = math.Copysign(1, y1[arg]-y2[arg])
		}
		return best
	}
	s := 0.0
	for j := range y1 {
		d := y1[j] - y2[j]
		s += d * d
	}
	v := math.Sqrt(s)
	if math.IsInf(s, 1) {
		v = scaledNorm(y1, y2) // the squares overflow, the norm may not
	}
	if dr != nil {
		for j := range y1 {
			if v > 0 {
				dr[j] = (y1[j] - y2[j]) / v
			} else {
				dr[j] = 0
			}
		}
	}
	return v
}

// scaledNorm returns ||y1 - y2||_2 computed as m ||(y1 - y2)/m|| with m
// the largest |y1_j - y2_j|, which overflows only when the norm does.
func scaledNorm(y1, y2 []float64) float64 {
	m := 0.0
	for j := range y1 {
		m = max(m, math.Abs(y1[j]-y2[j]))
	}
	if m == 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		return m
	}
	s := 0.0
	for j := range y1 {
		d := (y1[j] - y2[j]) / m
		s += d * d
	}
	return m * math.Sqrt(s)
}
