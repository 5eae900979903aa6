package bounds

import (
	"errors"
	"fmt"
)

// ErrOptions reports invalid Options.
var ErrOptions = errors.New("invalid options")

// Method is a bound-propagation method.
type Method int

// The methods, from loosest and fastest to tightest.
const (
	// MethodInterval propagates boxes layer by layer (interval arithmetic), and
	// for a pair of networks also the box of their difference.
	MethodInterval Method = iota
	// MethodSymbolic propagates linear bounds in the input with back-substitution
	// (DeepPoly/CROWN style) and, for a pair, linear bounds of the
	// difference (NeuroDiff style); its results are intersected with
	// MethodInterval's, so it is never looser.
	MethodSymbolic
)

var methodNames = [...]string{"interval", "symbolic"}

// String returns the method's name.
func (m Method) String() string {
	if m < 0 || int(m) >= len(methodNames) {
		return fmt.Sprintf("Method(%d)", int(m))
	}
	return methodNames[m]
}

// ParseMethod returns the method named s (as printed by String).
func ParseMethod(s string) (Method, error) {
	for i, n := range methodNames {
		if n == s {
			return Method(i), nil
		}
	}
	return 0, fmt.Errorf("bounds: unknown method %q (want interval or symbolic): %w", s, ErrOptions)
}

// Options configures bound propagation.
type Options struct {
	// Method is the propagation method.
	Method Method
}

// DefaultOptions returns the default options: the tightest method.
func DefaultOptions() Options {
	return Options{Method: MethodSymbolic}
}

// Validate reports an unknown method.
func (o Options) Validate() error {
	if o.Method < MethodInterval || o.Method > MethodSymbolic {
		return fmt.Errorf("bounds: options: unknown method %d: %w", int(o.Method), ErrOptions)
	}
	return nil
}
