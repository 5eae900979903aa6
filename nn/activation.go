package nn

import (
	"errors"
	"fmt"
	"math"
)

// ActivationKind names an elementwise activation function.
type ActivationKind int

// The activations nnbound understands.
const (
	Identity  ActivationKind = iota // s
	ReLU                            // max(0, s)
	LeakyReLU                       // s if s >= 0, else Alpha*s
	Tanh                            // tanh(s)
	Sigmoid                         // 1/(1+exp(-s))
	ELU                             // s if s >= 0, else Alpha*(exp(s)-1)
	HardTanh                        // min(max(s, Lo), Hi) (saturation)
)

var kindNames = [...]string{"identity", "relu", "leaky_relu", "tanh", "sigmoid", "elu", "hardtanh"}

// String returns the lower-case name used in JSON files and on the command line.
func (k ActivationKind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("ActivationKind(%d)", int(k))
	}
	return kindNames[k]
}

// ParseActivationKind returns the kind named s (as printed by String);
// "linear" is accepted as another name of Identity.
func ParseActivationKind(s string) (ActivationKind, error) {
	if s == "linear" {
		return Identity, nil
	}
	for i, n := range kindNames {
		if n == s {
			return ActivationKind(i), nil
		}
	}
	return 0, fmt.Errorf("nn: unknown activation %q", s)
}

// Activation is an activation kind with its parameters: Alpha for LeakyReLU
// and ELU, Lo and Hi for HardTanh.
type Activation struct {
	Kind   ActivationKind
	Alpha  float64
	Lo, Hi float64
}

// Validate reports an ill-formed activation (unknown kind, non-finite
// parameters, Lo > Hi).
func (a Activation) Validate() error {
	if a.Kind < Identity || a.Kind > HardTanh {
		return errors.New("unknown activation kind")
	}
	for _, v := range []float64{a.Alpha, a.Lo, a.Hi} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%v parameter is %v: %w", a.Kind, v, ErrNotFinite)
		}
	}
	if a.Kind == HardTanh && a.Lo > a.Hi {
		return fmt.Errorf("hardtanh bounds inverted: lo %v > hi %v", a.Lo, a.Hi)
	}
	return nil
}

// Apply returns the activation of s.
func (a Activation) Apply(s float64) float64 {
	switch a.Kind {
	case ReLU:
		return max(0, s)
	case LeakyReLU:
		if s >= 0 {
			return s
		}
		return a.Alpha * s
	case Tanh:
		return math.Tanh(s)
	case Sigmoid:
		return 1 / (1 + math.Exp(-s))
	case ELU:
		if s >= 0 {
			return s
		}
		return a.Alpha * math.Expm1(s)
	case HardTanh:
		return min(max(s, a.Lo), a.Hi)
	}
	return s
}

// Kinks returns the points where a piecewise-linear activation changes
// slope: 0 for ReLU and leaky ReLU, Lo and Hi for hard-tanh; nil for the
// others.
func (a Activation) Kinks() []float64 {
	switch a.Kind {
	case ReLU, LeakyReLU:
		return []float64{0}
	case HardTanh:
		return []float64{a.Lo, a.Hi}
	}
	return nil
}

// Describe formats a with its parameters: "leaky_relu(alpha=0.1)".
func (a Activation) Describe() string {
	switch a.Kind {
	case LeakyReLU, ELU:
		return fmt.Sprintf("%v(alpha=%g)", a.Kind, a.Alpha)
	case HardTanh:
		return fmt.Sprintf("%v(%g, %g)", a.Kind, a.Lo, a.Hi)
	}
	return a.Kind.String()
}
