package align

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nnbound/nnbound/nn"
)

// roundingTol is the relative tolerance of the function check after a
// permutation (see the package doc).
const roundingTol = 1e-12

// maxCorners bounds the number of corners of the box the check evaluates:
// with 6 inputs or more, 64 corners are drawn at random.
const maxCorners = 64

// check evaluates g and its aligned copy h on the points of opts and
// returns an error at the first point where they disagree: in any way
// when rep.Exact, by more than the rounding tolerance otherwise. It
// records the number of points and the largest difference in rep.
func check(g, h *nn.Network, opts Options, rep *Report) error {
	hidden := &nn.Network{Layers: g.Layers[:len(g.Layers)-1]}
	last := g.Layers[len(g.Layers)-1]
	for p, x := range points(g.InputSize(), opts) {
		hx, err := hidden.Eval(x) // g's last hidden layer, for the scale
		if err != nil {
			return err
		}
		yg, err := (&nn.Network{Layers: []nn.Layer{last}}).Eval(hx)
		if err != nil {
			return err
		}
		yh, err := h.Eval(x)
		if err != nil {
			return err
		}
		rep.Checked++
		for i := range yg {
			d := math.Abs(yh[i] - yg[i])
			tol := 0.0
			if !rep.Exact {
				scale := math.Abs(yg[i]) + math.Abs(last.B[i])
				for j, w := range last.W.RawRowView(i) {
					scale += math.Abs(w * hx[j])
				}
				tol = roundingTol * scale
			}
			if !(d <= tol) { // NaN fails too
				return fmt.Errorf("aligned g differs from g at check point %d, output %d: %v against %v (allowed %v)",
					p, i, yh[i], yg[i], tol)
			}
			rep.MaxDiff = max(rep.MaxDiff, d)
		}
	}
	return nil
}

// points returns the centre of the box of opts, its corners (all of them,
// or maxCorners random ones) and opts.Samples uniform random points.
func points(n int, opts Options) [][]float64 {
	lo, hi := opts.Lo, opts.Hi
	if lo == nil {
		lo, hi = make([]float64, n), make([]float64, n)
		for i := range lo {
			lo[i], hi[i] = -1, 1
		}
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x616c69676e))
	centre := make([]float64, n)
	for i := range centre {
		centre[i] = lo[i] + (hi[i]-lo[i])/2
	}
	pts := [][]float64{centre}
	corners := maxCorners
	if n < 6 {
		corners = 1 << n
	}
	for c := range corners {
		x := make([]float64, n)
		for i := range x {
			bit := c>>i&1 == 1
			if n >= 6 {
				bit = rng.IntN(2) == 1
			}
			x[i] = lo[i]
			if bit {
				x[i] = hi[i]
			}
		}
		pts = append(pts, x)
	}
	for range opts.Samples {
		x := make([]float64, n)
		for i := range x {
			x[i] = lo[i] + rng.Float64()*(hi[i]-lo[i])
		}
		pts = append(pts, x)
	}
	return pts
}
