package nn

import (
	"fmt"
	"math"
)

// UnaryFunc names a smooth elementwise function of a transformer graph
// (ONNX Exp, Sqrt, Reciprocal, Pow 2 and 3, Erf; GELU).
type UnaryFunc int

// The elementwise functions of Unary.
const (
	Exp        UnaryFunc = iota // exp(t)
	Sqrt                        // sqrt(t), NaN below 0
	Reciprocal                  // 1/t
	Square                      // t^2
	Cube                        // t^3
	Erf                         // erf(t)
	GELU                        // t (1 + erf(C t)) / 2; C = 1/sqrt(2) is the exact GELU
)

var unaryNames = [...]string{"exp", "sqrt", "reciprocal", "square", "cube", "erf", "gelu"}

// String returns the lower-case name of f.
func (f UnaryFunc) String() string {
	if f < 0 || int(f) >= len(unaryNames) {
		return fmt.Sprintf("UnaryFunc(%d)", int(f))
	}
	return unaryNames[f]
}

// Unary applies the function F to every value; C is GELU's scale of the
// argument of erf (unused by the others).
type Unary struct {
	F UnaryFunc
	C float64
}

// Apply returns F(t) in float64 (math.Exp, math.Sqrt, math.Erf; 1/t,
// t*t and t*t*t rounded once per operation).
func (u Unary) Apply(t float64) float64 {
	switch u.F {
	case Exp:
		return math.Exp(t)
	case Sqrt:
		return math.Sqrt(t)
	case Reciprocal:
		return 1 / t
	case Square:
		return t * t
	case Cube:
		return t * t * t
	case Erf:
		return math.Erf(t)
	case GELU:
		return t * (1 + math.Erf(u.C*t)) / 2
	}
	panic("nn: unknown unary function") // Validate rejects it
}

// Deriv returns the derivative F'(t).
func (u Unary) Deriv(t float64) float64 {
	switch u.F {
	case Exp:
		return math.Exp(t)
	case Sqrt:
		return 0.5 / math.Sqrt(t)
	case Reciprocal:
		return -1 / (t * t)
	case Square:
		return 2 * t
	case Cube:
		return 3 * t * t
	case Erf:
		return 2 / math.SqrtPi * math.Exp(-t*t)
	case GELU:
		c := u.C * t
		return (1+math.Erf(c))/2 + c/math.SqrtPi*math.Exp(-c*c)
	}
	panic("nn: unknown unary function")
}

// Eval sets dst_i = F(x_i).
func (u Unary) Eval(dst []float64, in [][]float64) {
	for i, v := range in[0] {
		dst[i] = u.Apply(v)
	}
}

// Describe returns the function's name, with C for GELU.
func (u Unary) Describe() string {
	if u.F == GELU {
		return fmt.Sprintf("gelu(c=%g)", u.C)
	}
	return u.F.String()
}

// Validate reports an unknown function or a non-finite C.
func (u Unary) Validate() error {
	if u.F < Exp || u.F > GELU {
		return fmt.Errorf("nn: unknown unary function %d: %w", int(u.F), ErrDimension)
	}
	if u.C-u.C != 0 {
		return fmt.Errorf("nn: %v parameter is %v: %w", u.F, u.C, ErrNotFinite)
	}
	return nil
}

// Mul is the product of two computed values of the same size, value by
// value: y_i = a_i b_i (ONNX Mul of two tensors, with any broadcasting
// done by a Gather before; MatMul and Div of two tensors are built from
// it).
type Mul struct{}

// Eval sets dst_i = in[0]_i * in[1]_i.
func (Mul) Eval(dst []float64, in [][]float64) {
	a, b := in[0], in[1]
	for i := range dst {
		dst[i] = a[i] * b[i]
	}
}

// Describe returns "mul".
func (Mul) Describe() string { return "mul" }
