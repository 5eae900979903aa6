package certify

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/spec"
)

// TestSDPSkipped checks that under a time budget the SDP is not attempted
// where it cannot pay, and says why: when bound propagation is already
// within the target ratio of the observed error (the paper's 1-10-1
// network against its FB = 2 copy, where propagation is exact), and when
// the LMI's order is over MaxBudgetOrder (a 2-300-1 network), and when
// its variables are over MaxBudgetVariables (the authors' slope pairs of
// a 1-30-30-1 network and its copy: about 7,000). The bound is then
// propagation's, and the solver is never called.
func TestSDPSkipped(t *testing.T) {
	noSolve := func(context.Context, *sdp.Problem, *sdp.Settings) (*sdp.Result, error) {
		t.Fatal("the solver was called")
		return nil, nil
	}
	qf := quantise.Format{FracBits: 2}
	small := randnet.Paper(1, 1, 1, 10, 1)
	nets := []*nn.Network{small, randnet.Paper(2, 2, 1, 300, 1), randnet.Paper(3, 1, 2, 30, 1)}
	for _, c := range []struct {
		name string
		box  *spec.Box
		net  int
		qc   QCSet
		want string
	}{
		{"propagation close enough", &spec.Box{Lo: []float64{-1}, Hi: []float64{1}}, 0, QCDefault, "within the target ratio"},
		{"order over the limit", &spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}, 1, QCDefault, "order"},
		{"variables over the limit", &spec.Box{Lo: []float64{-1}, Hi: []float64{1}}, 2, QCPaper, "MaxBudgetVariables"},
	} {
		f1 := nets[c.net]
		f2, err := quantise.Network(f1, quantise.Options{Weights: qf, Biases: qf})
		if err != nil {
			t.Fatal(err)
		}
		o := testTask()
		o.in.Pairing, o.in.Quant = spec.QuantisedInput, qf
		o.Solve, o.Refine.MaxPieces, o.QC = noSolve, 1, c.qc
		cert, err := o.bound(context.Background(), f1, f2, *c.box)
		if err != nil {
			t.Fatal(err)
		}
		if !cert.Certified() || cert.Source != MethodPropagation || cert.Bound != cert.IntervalBound || cert.SDP.Solves != 0 {
			t.Errorf("%s: certified %v, source %v, bound %v (propagation's %v), %d solves: want propagation's bound and no solve",
				c.name, cert.Certified(), cert.Source, cert.Bound, cert.IntervalBound, cert.SDP.Solves)
		}
		if !strings.Contains(cert.SDPSkipped.String(), c.want) || !math.IsInf(cert.SDPBound, 1) {
			t.Errorf("%s: SDPSkipped %q, SDP bound %v: want a reason with %q and no SDP bound", c.name, cert.SDPSkipped, cert.SDPBound, c.want)
		}
	}
}
