package certify

import (
	"errors"
	"fmt"
)

// Arith is the arithmetic in which a certificate's bound holds for the
// networks' evaluation.
type Arith int

const (
	// ArithReal bounds the networks evaluated in exact real arithmetic
	// (and in float64 to within the certificate's rounding check): the
	// default, and the only arithmetic of the SDP (Bound).
	ArithReal Arith = iota
	// ArithFloat32 also bounds any float32 evaluation of the networks, as
	// onnxruntime and torch run them on a CPU: the input rounded to
	// float32, every operation rounded, in any order of summation
	// (bounds.GraphOptions.Float32). Only BoundGraph certifies it.
	ArithFloat32
)

var arithNames = [...]string{"real", "float32"}

// String returns "real" or "float32", the names of --arith.
func (a Arith) String() string {
	if a < 0 || int(a) >= len(arithNames) {
		return fmt.Sprintf("Arith(%d)", int(a))
	}
	return arithNames[a]
}

// Describe says in words what the arithmetic covers: "real arithmetic
// (float64-checked)" or "float32 evaluation (any order of summation) and
// real arithmetic".
func (a Arith) Describe() string {
	switch a {
	case ArithReal:
		return "real arithmetic (float64-checked)"
	case ArithFloat32:
		return "float32 evaluation (any order of summation) and real arithmetic"
	}
	return a.String()
}

// ErrArith reports an arithmetic that is unknown or that the method
// cannot certify.
var ErrArith = errors.New("unsupported arithmetic")

// ParseArith returns the arithmetic named s (as printed by String).
func ParseArith(s string) (Arith, error) {
	for i, n := range arithNames {
		if s == n {
			return Arith(i), nil
		}
	}
	return 0, fmt.Errorf("certify: arithmetic %q, want real or float32: %w", s, ErrArith)
}
