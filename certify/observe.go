package certify

import (
	"math/rand/v2"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// observation is the largest error found so far and where.
type observation struct {
	err    float64
	x1, x2 []float64
	exact  bool // err is the supremum (search's breakpoint enumeration)
}

// errorAt returns the error of f1(x1) and f2(x2) that o bounds (see
// spec.Quantity.Measure), or 0 when either network fails to evaluate.
func errorAt(f1, f2 *nn.Network, x1, x2 []float64, o *task) float64 {
	y1, err1 := f1.Eval(x1)
	y2, err2 := f2.Eval(x2)
	if err1 != nil || err2 != nil {
		return 0
	}
	return spec.Quantity{Norm: o.q.Norm, C: o.q.C}.Measure(y1, y2)
}

// try evaluates an actual input pair and keeps it if it is the worst.
func (ob *observation) try(f1, f2 *nn.Network, x1, x2 []float64, o *task) {
	if e := errorAt(f1, f2, x1, x2, o); e > ob.err {
		// Above an exact supremum only by rounding: keep the flag.
		ob.exact = ob.exact && e <= ob.err*(1+1e-12)
		ob.err, ob.x1, ob.x2 = e, append([]float64(nil), x1...), append([]float64(nil), x2...)
	}
}

// pairOf returns the actual x2 paired with x1 in region r (for
// Independent, x2 is drawn by the caller).
func pairOf(r *region, o *task, x1 []float64) []float64 {
	in := spec.Inputs{Pairing: r.Pairing, Quant: o.in.Quant}
	return in.X2(x1)
}

// observe samples actual input pairs of region r: the corners (up to 2^10),
// the centre and n random points, and refines the best by a few rounds of
// coordinate search with shrinking steps.
func (ob *observation) observe(f1, f2 *nn.Network, r *region, o *task, rng *rand.Rand, n int) {
	nx := r.Box1.Dim()
	indep := r.Pairing == spec.Independent
	dims := nx
	if indep {
		dims = 2 * nx
	}
	lo := append(append([]float64(nil), r.Box1.Lo...), r.Box2.Lo...)[:dims]
	hi := append(append([]float64(nil), r.Box1.Hi...), r.Box2.Hi...)[:dims]
	eval := func(z []float64) float64 {
		x1 := z[:nx]
		x2 := pairOf(r, o, x1)
		if indep {
			x2 = z[nx:]
		}
		before := ob.err
		ob.try(f1, f2, x1, x2, o)
		if ob.err > before {
			return ob.err
		}
		return errorAt(f1, f2, x1, x2, o)
	}
	z := make([]float64, dims)
	if dims <= 10 {
		for c := range 1 << dims {
			for i := range z {
				z[i] = lo[i]
				if c>>i&1 == 1 {
					z[i] = hi[i]
				}
			}
			eval(z)
		}
	}
	for i := range z {
		z[i] = lo[i] + (hi[i]-lo[i])/2
	}
	eval(z)
	best, bestZ := -1.0, make([]float64, dims)
	for range n {
		for i := range z {
			z[i] = lo[i] + rng.Float64()*(hi[i]-lo[i])
		}
		if e := eval(z); e > best {
			best = e
			copy(bestZ, z)
		}
	}
	if best < 0 {
		return
	}
	// Coordinate search from the best random point.
	step := make([]float64, dims)
	for i := range step {
		step[i] = (hi[i] - lo[i]) / 8
	}
	for range 30 {
		improved := false
		for i := range bestZ {
			for _, dir := range [2]float64{-1, 1} {
				copy(z, bestZ)
				z[i] = min(hi[i], max(lo[i], z[i]+dir*step[i]))
				if e := eval(z); e > best {
					best, improved = e, true
					copy(bestZ, z)
				}
			}
		}
		if !improved {
			for i := range step {
				step[i] /= 2
			}
		}
	}
}
