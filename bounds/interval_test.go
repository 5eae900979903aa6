package bounds

import (
	"math"
	"testing"
)

// TestOrdered checks ordered against the swap it replaces, to the bit,
// on signed zeros, infinities and NaN.
func TestOrdered(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 2.5, math.Inf(1), math.Inf(-1), math.NaN(), 5e-324}
	for _, a := range vals {
		for _, b := range vals {
			wantLo, wantHi := a, b
			if a > b {
				wantLo, wantHi = b, a
			}
			lo, hi := ordered(a, b)
			if math.Float64bits(lo) != math.Float64bits(wantLo) || math.Float64bits(hi) != math.Float64bits(wantHi) {
				t.Errorf("ordered(%v, %v) = %v, %v, want %v, %v", a, b, lo, hi, wantLo, wantHi)
			}
		}
	}
}
