package suite

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// freeRoundingMax returns a lower bound on
//
//	max ||f1(x) - g(x, e)||_2  over x in box and |e_i| <= r_i,
//
// where g is the lowering low of an int8 network (bounds.Lowered) with
// every rounding e a free noise, as the SDP's int8 quadratic constraints
// model it (qc.Noise): what any bound from that model is at least, found
// by alternating sweeps over the noises' signs and the inputs' ends from
// starts (each x of starts, then random points of box). It is not an
// error of the networks: their roundings are functions of x.
func freeRoundingMax(f1 *nn.Network, low bounds.Lowered, box spec.Box, starts [][]float64, random int, seed uint64) float64 {
	rng := rand.New(rand.NewPCG(seed, 11))
	value := func(x []float64, es [][]float64) float64 {
		y1, err := f1.Eval(x)
		if err != nil {
			return math.NaN()
		}
		h := x
		for k, l := range low.Net.Layers {
			out := make([]float64, l.Out())
			l.AffineTo(out, h)
			for i := range out {
				if es[k] != nil {
					out[i] += es[k][i]
				}
				out[i] = l.Act.Apply(out[i])
			}
			h = out
		}
		return spec.Quantity{Norm: spec.Norm2}.Measure(y1, h)
	}
	for range random {
		x := make([]float64, box.Dim())
		for i := range x {
			x[i] = box.Lo[i] + rng.Float64()*(box.Hi[i]-box.Lo[i])
		}
		starts = append(starts, x)
	}
	best := 0.0
	for _, x := range starts {
		x = slices.Clone(x)
		es := make([][]float64, len(low.Noise))
		for k, rs := range low.Noise {
			if rs != nil {
				es[k] = make([]float64, len(rs))
				for i, r := range rs {
					es[k][i] = r * float64(2*rng.IntN(2)-1)
				}
			}
		}
		v := value(x, es)
		for improved := true; improved; {
			improved = false
			for k := range es {
				for i := range es[k] {
					es[k][i] = -es[k][i]
					if u := value(x, es); u > v {
						v, improved = u, true
					} else {
						es[k][i] = -es[k][i]
					}
				}
			}
			for i := range x {
				old := x[i]
				for _, c := range []float64{box.Lo[i], box.Hi[i]} {
					x[i] = c
					if u := value(x, es); u > v {
						v, improved, old = u, true, c
					}
				}
				x[i] = old
			}
		}
		best = max(best, v)
	}
	return best
}
