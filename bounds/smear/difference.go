package smear

import (
	"math"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
)

// Difference returns, per input i, a score of how much halving x_i
// narrows the relaxations of the difference g - f over the box of pb,
// where bound propagation loses its bound on close copies: in the deep
// layers, where f's neurons straddle 0 and ReLU(a + d) - ReLU(a) is known
// only to lie in DiffPost's enclosure. Each hidden neuron j that
// straddles 0 in f or g costs the width of its DiffPost enclosure times
// the largest magnitude of the gradient of the outputs ks with respect to
// its activation (over the box, from f's pre-activation bounds); the cost
// is shared among the inputs in proportion to their smear of the neuron's
// pre-activation, width_i times the largest |d a_j / d x_i|, the part of
// its range that halving x_i would take away. A heuristic, not a bound;
// nil when pb's layers do not match f's or a layer is structured.
func Difference(f, g *nn.Network, pb *bounds.PairBounds, ks []int, lo, hi []float64) []float64 {
	if pb.Net1 == nil || pb.Net2 == nil || len(pb.Net1.Pre) != len(f.Layers) || len(pb.Net2.Pre) != len(g.Layers) ||
		len(pb.DiffPost) != len(f.Layers) {
		return nil
	}
	jac := preJacobians(f, pb.Net1.Pre)
	if jac == nil {
		return nil
	}
	cost := make([][]float64, len(f.Layers))
	for _, k := range ks {
		_, _, ok := gradientEnclosure(f, pb.Net1.Pre, k, func(l int, glo, ghi []float64) {
			if cost[l] == nil {
				cost[l] = make([]float64, len(glo))
			}
			for j := range glo {
				cost[l][j] += max(math.Abs(glo[j]), math.Abs(ghi[j]))
			}
		})
		if !ok {
			return nil
		}
	}
	out := make([]float64, len(lo))
	share := make([]float64, len(lo))
	for l := range len(f.Layers) - 1 {
		dp := pb.DiffPost[l]
		if dp == nil || len(pb.Net2.Pre[l]) != len(dp) {
			continue
		}
		for j, d := range dp {
			if !straddles(pb.Net1.Pre[l][j]) && !straddles(pb.Net2.Pre[l][j]) {
				continue
			}
			c := cost[l][j] * (d.Hi - d.Lo)
			sum := 0.0
			for i := range share {
				share[i] = (hi[i] - lo[i]) * jac[l].mag(j, i)
				sum += share[i]
			}
			if !(c > 0 && sum > 0) {
				continue
			}
			for i, s := range share {
				out[i] += c * s / sum
			}
		}
	}
	return out
}

// straddles reports whether z contains values on both sides of 0.
func straddles(z bounds.Interval) bool { return z.Lo < 0 && z.Hi > 0 }

// jacobian is an enclosure [lo, hi] of a layer's Jacobian with respect to
// the inputs, row-major with cols columns.
type jacobian struct {
	lo, hi []float64
	cols   int
}

// mag returns the largest magnitude of entry (r, c).
func (j jacobian) mag(r, c int) float64 {
	return max(math.Abs(j.lo[r*j.cols+c]), math.Abs(j.hi[r*j.cols+c]))
}

// preJacobians returns, per layer, an enclosure of the Jacobian of f's
// pre-activations with respect to the inputs over the inputs whose
// pre-activations lie in pre (float64 arithmetic, a heuristic like
// gradientEnclosure), or nil for a structured layer or mismatched widths.
//
// A row of the layer below whose entries are all zero (a neuron that is
// off on the whole box) is skipped: its products are zeros, and adding a
// zero leaves each sum as it is (the sums start at +0, so none is -0),
// which is as cheap to the bit as a ReLU network's dead neurons are
// common.
func preJacobians(f *nn.Network, pre [][]bounds.Interval) []jacobian {
	out := make([]jacobian, len(f.Layers))
	n := f.InputSize()
	var below jacobian // the activations' Jacobian of the layer below
	var zero []bool    // its rows that are all zero
	for l := range f.Layers {
		layer := &f.Layers[l]
		if layer.W == nil || len(pre[l]) != layer.Out() {
			return nil
		}
		w := layer.W.RawMatrix()
		cur := jacobian{lo: make([]float64, w.Rows*n), hi: make([]float64, w.Rows*n), cols: n}
		for r := range w.Rows {
			clo, chi := cur.lo[r*n:(r+1)*n], cur.hi[r*n:(r+1)*n]
			for j, v := range w.Data[r*w.Stride : r*w.Stride+w.Cols] {
				if l == 0 {
					clo[j], chi[j] = v, v
					continue
				}
				if zero[j] {
					continue
				}
				blo, bhi := below.lo[j*n:(j+1)*n], below.hi[j*n:(j+1)*n]
				for i := range n {
					lo, hi := scaleSpan(v, blo[i], bhi[i])
					clo[i] += lo
					chi[i] += hi
				}
			}
		}
		out[l] = cur
		below = jacobian{lo: make([]float64, len(cur.lo)), hi: make([]float64, len(cur.hi)), cols: n}
		zero = make([]bool, w.Rows)
		for r, z := range pre[l] {
			slo, shi := activationSlopes(layer.Act, z)
			zero[r] = true
			for i := range n {
				lo, hi := mulSpan(cur.lo[r*n+i], cur.hi[r*n+i], slo, shi)
				below.lo[r*n+i], below.hi[r*n+i] = lo, hi
				zero[r] = zero[r] && lo == 0 && hi == 0
			}
		}
	}
	return out
}
