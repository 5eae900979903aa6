// Package certjob is the flat view of a certification that the commands
// bind their flags to and the campaigns generate: the question as flags
// give it (the pairing and input quantiser of the input set, whose box is
// passed apart, and the norm or output weights of the measured quantity)
// next to certify's options. Job.Bound splits it back into the
// spec.Inputs, spec.Quantity and certify.Options that certify.Bound takes.
package certjob

import (
	"context"
	"fmt"
	"io"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/progress"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// Job is one certification: the question with certify's options.
type Job struct {
	certify.Options
	// Pairing and Quant make the input set with the box (spec.Inputs).
	Pairing spec.Pairing
	Quant   quantise.Format
	// Norm and C are the measured quantity (spec.Quantity).
	Norm spec.Norm
	C    []float64
}

// Default returns certify.DefaultOptions for independent inputs, the
// 2-norm and, for quantised inputs, a 2-bit input quantiser.
func Default() Job {
	return Job{Options: certify.DefaultOptions(), Pairing: spec.Independent, Quant: quantise.Format{FracBits: 2}}
}

// Inputs returns the input set of j over box.
func (j Job) Inputs(box spec.Box) spec.Inputs {
	return spec.Inputs{Box: box, Pairing: j.Pairing, Quant: j.Quant}
}

// CopyWidth gives j's input quantiser, for quantised inputs without a
// width (Quant.FracBits 0), the width of copy, the network fed q(x): the
// fewest fractional bits holding the weights and biases of its affine
// nodes (quantise.GridFracBitsGraph; a chain passes its Graph). It
// returns the width it set (0 when j needed none), and ok false when
// copy is on no fixed-point grid of up to quantise.MaxFracBits bits.
func (j *Job) CopyWidth(copy *nn.Graph) (fb int, ok bool) {
	if j.Pairing != spec.QuantisedInput || j.Quant.FracBits != 0 {
		return 0, true
	}
	if fb, ok = quantise.GridFracBitsGraph(copy); ok {
		j.Quant.FracBits = fb
	}
	return fb, ok
}

// Quantity returns what j bounds.
func (j Job) Quantity() spec.Quantity { return spec.Quantity{Norm: j.Norm, C: j.C} }

// Bound runs certify.Bound for j on box.
func (j Job) Bound(ctx context.Context, f1, f2 *nn.Network, box spec.Box) (*certify.Certificate, error) {
	return certify.Bound(ctx, f1, f2, j.Inputs(box), j.Quantity(), j.Options)
}

// BoundShowing is Bound with a status line on stderr while it runs
// (progress.StartStatus: on a terminal, and with no log of j's own, after
// two seconds): the bound so far, the largest error found, their ratio
// and the pieces of the input set.
func (j Job) BoundShowing(ctx context.Context, f1, f2 *nn.Network, box spec.Box, stderr io.Writer) (*certify.Certificate, error) {
	stop, status := progress.StartStatus(stderr, "certifying", &j.Log)
	defer stop()
	if j.Progress == nil {
		j.Progress = func(p certify.Progress) { status(StatusLine(p)) }
	}
	return j.Bound(ctx, f1, f2, box)
}

// StatusLine returns the state p of a refinement in words:
//
//	bound 0.0123, found 0.0101, ratio 1.22, 31 pieces
func StatusLine(p certify.Progress) string {
	return fmt.Sprintf("bound %.4g, found %.4g, ratio %.3g, %d pieces", p.Bound, p.Observed, p.Bound/p.Observed, p.Pieces)
}

// Problem returns certify.Problem for j on box.
func (j Job) Problem(f1, f2 *nn.Network, box spec.Box) (*certify.RootProblem, error) {
	return certify.Problem(f1, f2, j.Inputs(box), j.Quantity(), j.Options)
}

// BoundGraph runs certify.BoundGraph for j on box, with BoundShowing's
// status line (shown from two seconds on, while the first pass runs too).
func (j Job) BoundGraph(ctx context.Context, g1, g2 *nn.Graph, box spec.Box, stderr io.Writer) (*certify.Certificate, error) {
	stop, status := progress.StartStatus(stderr, "certifying", &j.Log)
	defer stop()
	if j.Progress == nil {
		j.Progress = func(p certify.Progress) { status(StatusLine(p)) }
	}
	return certify.BoundGraph(ctx, g1, g2, j.Inputs(box), j.Quantity(), j.Options)
}
