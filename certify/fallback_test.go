package certify

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/spec"
)

// TestFallbackReported: when every SDP fails, the bound is bound
// propagation's and the certificate says so (Source, Fallbacks, Reason),
// with and without splitting, for the 2-norm and the inf-norm.
func TestFallbackReported(t *testing.T) {
	fail := func(context.Context, *sdp.Problem, *sdp.Settings) (*sdp.Result, error) {
		return &sdp.Result{Status: sdp.NumericalTrouble}, nil
	}
	box := spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}
	for _, tc := range []struct {
		name   string
		pieces int
		norm   spec.Norm
		outs   int
	}{
		{"root", 1, spec.Norm2, 1},
		{"split", 5, spec.Norm2, 1},
		{"inf-norm", 1, spec.NormInf, 2},
	} {
		f1 := randnet.Paper(1, 2, 2, 5, tc.outs)
		f2 := randnet.Paper(2, 2, 2, 5, tc.outs)
		o := testTask()
		o.Solve, o.q.Norm = fail, tc.norm
		o.Refine.MaxPieces, o.Refine.TimeBudget, o.Samples = tc.pieces, 0, 50
		c, err := o.bound(t.Context(), f1, f2, box)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d pieces, %d fallbacks: %s", tc.name, len(c.Pieces), c.Fallbacks, c.Note)
		switch {
		case !c.Certified():
			t.Errorf("%s: not certified (%v: %s)", tc.name, c.Status, c.Reason)
		case c.Source != MethodPropagation || c.Method != MethodSDP:
			t.Errorf("%s: source %v, method %v; want interval, sdp", tc.name, c.Source, c.Method)
		case c.Fallbacks < 1:
			t.Errorf("%s: Fallbacks %d", tc.name, c.Fallbacks)
		case !strings.Contains(c.Note, "SDP"):
			t.Errorf("%s: reason %q does not name the failed SDP", tc.name, c.Note)
		case !math.IsInf(c.SDPBound, 1) || c.IntervalBound != c.Bound && len(c.Pieces) == 0:
			t.Errorf("%s: SDP bound %v, interval bound %v, bound %v", tc.name, c.SDPBound, c.IntervalBound, c.Bound)
		}
	}
}
