package certify

import (
	"math"
	"strings"
	"testing"
)

// TestCheckAttained: a bound below the observed error is raised, with a
// note, only within the rounding tolerance; beyond it the certificate
// fails loudly instead of being quietly repaired.
func TestCheckAttained(t *testing.T) {
	c := &Certificate{Status: Certified, Bound: 0.5, ObservedError: 0.5 + 1e-12}
	checkAttained(c)
	if !c.Certified() || c.Bound != c.ObservedError || !strings.Contains(c.Note, "raised by") {
		t.Errorf("within tolerance: got %+v, want the bound raised with a note", c)
	}
	c = &Certificate{Status: Certified, Bound: 0.5, ObservedError: 0.51, X1: []float64{1}, X2: []float64{1}}
	checkAttained(c)
	if c.Certified() || c.Status != CheckFailed || !math.IsInf(c.Bound, 1) || !strings.Contains(c.Reason, "below the error") {
		t.Errorf("beyond tolerance: got %+v, want check_failed", c)
	}
}
