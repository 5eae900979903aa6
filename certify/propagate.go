package certify

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// Enclosure is the result of one pass of bound propagation over a whole
// input set (Propagate): the first bound of Bound, and all of it for
// MethodPropagation without splitting.
type Enclosure struct {
	// Bound is an upper bound, rounded up, of the quantity over the input
	// set.
	Bound float64
	// Output encloses f2_j(x2) - f1_j(x1) for every output j.
	Output []bounds.Interval
	// Margin encloses c^T (f2(x2) - f1(x1)) when the quantity has C (nil
	// otherwise).
	Margin *bounds.Interval
}

// Propagate bounds the quantity q of f1(x1) - f2(x2) over the input set
// in by one pass of bound propagation with opts.Bounds and opts.Split
// (the optimised method's output enclosure intersected with the symbolic
// one's), the pass that gives Bound its first bound: every caller that
// wants a one-shot bound (bench among them) calls this, so none is
// tighter or faster than the command line's first pass. The error is
// non-nil for invalid input, as for Bound, and when the bound is not
// finite.
func Propagate(f1, f2 *nn.Network, in spec.Inputs, q spec.Quantity, opts Options) (*Enclosure, error) {
	t := task{Options: opts, in: in, q: q, timing: &Timing{}}
	if err := checkInput(f1, f2, &t); err != nil {
		return nil, err
	}
	root := rootRegion(in.Box, &t)
	rb, err := boundsOf(context.Background(), f1, f2, &root, &t)
	if err != nil {
		return nil, err
	}
	e := &Enclosure{Bound: rb.intervalValue(&t), Output: slices.Clone(rb.Output), Margin: rb.Margin}
	if math.IsNaN(e.Bound) || math.IsInf(e.Bound, 0) {
		return e, fmt.Errorf("certify: bound propagation gave no finite bound (%v)", e.Bound)
	}
	return e, nil
}
