package verify

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// attacker searches a box for inputs where g - f is large, in units of the
// tolerance (spec.Tolerance.Ratio), by sign-gradient ascent. Its values are
// heuristics: a violation it finds is re-evaluated (check.go) before it is
// reported.
type attacker struct {
	f, g *nn.Network
	in   spec.Inputs
	tol  spec.Tolerance
}

// traces holds the evaluations of f and g at one point, their storage
// reused from point to point (search.Trace.Reforward). Each goroutine has
// its own.
type traces struct{ f, g *search.Trace }

// newTraces returns empty traces of a's networks.
func (a *attacker) newTraces() traces {
	return traces{search.NewTrace(a.f), search.NewTrace(a.g)}
}

// gradient returns the ratio at x over the outputs open and a
// (sub)gradient of it with respect to x. Through an input quantiser the
// gradient passes straight (as if q(x) = x).
func (a *attacker) gradient(x []float64, open []int) (float64, []float64) {
	return a.gradientIn(a.newTraces(), x, open)
}

// gradientIn is gradient, evaluating the networks in tr.
func (a *attacker) gradientIn(tr traces, x []float64, open []int) (float64, []float64) {
	tf, tg := tr.f, tr.g
	yf, err := tf.Reforward(x)
	if err != nil {
		panic(err) // the dimensions were checked by Decide
	}
	yg, err := tg.Reforward(a.in.X2(x))
	if err != nil {
		panic(err)
	}
	d := make([]float64, len(yf))
	for k := range d {
		d[k] = yg[k] - yf[k]
	}
	r := a.tol.Ratio(d, open)
	v := make([]float64, len(d))
	if a.tol.Norm == spec.Norm2 {
		if n := a.tol.Measure(d); n > 0 {
			for k := range v {
				v[k] = d[k] / (n * a.tol.Eps[0])
			}
		}
	} else {
		best, arg := -1.0, open[0]
		for _, k := range open {
			if q := math.Abs(d[k]) / a.tol.EpsAt(k); q > best {
				best, arg = q, k
			}
		}
		v[arg] = math.Copysign(1/a.tol.EpsAt(arg), d[arg])
	}
	gg := tg.Backward(v)
	gf := tf.Backward(v)
	for i := range gg {
		gg[i] -= gf[i]
	}
	return r, gg
}

// ascend runs steps of sign-gradient ascent from x in the box [lo, hi],
// with steps shrinking from a quarter of the box's widths, and returns
// the best point seen and its ratio.
func (a *attacker) ascend(x, lo, hi []float64, open []int, steps int) ([]float64, float64) {
	tr := a.newTraces()
	best := append([]float64(nil), x...)
	bestV, grad := a.gradientIn(tr, best, open)
	cur := append([]float64(nil), x...)
	for t := range steps {
		alpha := 0.25 * (1 - float64(t)/float64(steps))
		for i := range cur {
			cur[i] = clamp(cur[i]+alpha*(hi[i]-lo[i])*sign(grad[i]), lo[i], hi[i])
		}
		var v float64
		v, grad = a.gradientIn(tr, cur, open)
		if v > bestV {
			bestV = v
			copy(best, cur)
		}
	}
	return best, bestV
}

// attackNode runs ascents from the parent's worst point warm (if not
// nil), the centre of [lo, hi] and starts uniform random points drawn with
// rng, and returns the best point and its ratio.
func (a *attacker) attackNode(warm, lo, hi []float64, open []int, steps, starts int, rng *rand.Rand) ([]float64, float64) {
	var points [][]float64
	if warm != nil {
		w := make([]float64, len(warm))
		for i := range w {
			w[i] = clamp(warm[i], lo[i], hi[i])
		}
		points = append(points, w)
	}
	points = append(points, centre(lo, hi))
	for range starts {
		p := make([]float64, len(lo))
		for i := range p {
			p[i] = lo[i] + rng.Float64()*(hi[i]-lo[i])
			p[i] = clamp(p[i], lo[i], hi[i])
		}
		points = append(points, p)
	}
	var best []float64
	bestV := -1.0
	for _, p := range points {
		x, v := a.ascend(p, lo, hi, open, steps)
		if v > bestV {
			best, bestV = x, v
		}
	}
	return best, bestV
}

// search runs search.MaxError (random points, corners, local searches
// and zooming; deterministic for the seed) on the box [lo, hi] for the
// difference of output k (the 2-norm for spec.Norm2), and returns its best
// point with its ratio over the outputs open.
func (a *attacker) search(lo, hi []float64, open []int, k int, seed uint64) ([]float64, float64) {
	in := a.in
	in.Box = spec.Box{Lo: lo, Hi: hi}
	so := search.DefaultOptions()
	so.Seed, so.Exact = seed, false
	q := spec.Quantity{Norm: spec.Norm2}
	if a.tol.Norm != spec.Norm2 {
		q.C = spec.OutputC(a.f.OutputSize(), k)
	}
	res, err := search.MaxError(context.Background(), a.f, a.g, in, q, so)
	if err != nil {
		panic(err) // the arguments were checked by Decide
	}
	r, _ := a.gradient(res.X1, open)
	return res.X1, r
}

// worstOutput returns the open output of largest ratio at x.
func (a *attacker) worstOutput(x []float64, open []int) int {
	yf, _ := a.f.Eval(x)
	yg, _ := a.g.Eval(a.in.X2(x))
	best, arg := -1.0, open[0]
	for _, k := range open {
		if q := math.Abs(yg[k]-yf[k]) / a.tol.EpsAt(k); q > best {
			best, arg = q, k
		}
	}
	return arg
}

// centre returns the midpoint of [lo, hi].
func centre(lo, hi []float64) []float64 {
	c := make([]float64, len(lo))
	for i := range c {
		c[i] = clamp(lo[i]/2+hi[i]/2, lo[i], hi[i])
	}
	return c
}

// clamp returns v clipped to [lo, hi].
func clamp(v, lo, hi float64) float64 { return min(max(v, lo), hi) }

// sign returns the sign of v (0 for 0).
func sign(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}
