package sdp

import (
	"errors"
	"math"
)

// ErrDimension reports a malformed problem: wrong number of matrices,
// entries outside their block, empty blocks.
var ErrDimension = errors.New("dimension mismatch")

// ErrNotFinite reports a NaN or infinite number in the problem data.
var ErrNotFinite = errors.New("value is not finite")

// ErrTooLarge reports a problem whose workspace could not be allocated:
// the dense PSD blocks and the Schur complement need more than
// MaxWorkspace bytes.
var ErrTooLarge = errors.New("problem too large")

// ErrSettings reports a Settings field out of range.
var ErrSettings = errors.New("invalid settings")

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
