package bounds

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/internal/outward"
)

// Slicing the difference of a smooth activation by its pre-activation.
//
// For a tanh or sigmoid neuron with xi1 in A and d = xi2 - xi1 in D, the
// chord of smoothdiff.go bounds phi(xi1 + d) - phi(xi1) on the box A x D,
// as if the largest d could occur where phi is steepest. On a trained
// network it often does not: where the difference is large the neuron is
// saturated. So A is cut into slices A_s and d is bounded on each slice,
// {x : xi1(x) in A_s}, by weak duality: for any kappa,
//
//	d = (d + kappa xi1) - kappa xi1 <= max (d + kappa xi1) - kappa a,
//
// with a = A_s.Lo for kappa >= 0 and A_s.Hi otherwise, the maximum taken
// by joint back-substitution (diffsub.go), and the best of a few kappas
// kept (any kappa is sound); likewise below. The difference of the
// outputs is then the hull over the slices of the chord on A_s x D_s.

// diffSlices is the number of slices of a pre-activation range.
const diffSlices = 6

// sliceKappas are the multipliers tried; powers of two, so kappa W1 is
// exact.
var sliceKappas = []float64{0, 1, -1, 0x1p-2, -0x1p-2, 0x1p-4, -0x1p-4, 0x1p-6, -0x1p-6}

// sliceDiff tightens DiffPost[k] of the tanh and sigmoid neurons of layer
// k (k < chain, symbolic) by slicing their pre-activation ranges.
func (pp *pairProp) sliceDiff(k int) {
	a1, a2 := pp.f1.Layers[k].Act, pp.f2.Layers[k].Act
	pb := pp.pb
	if k >= pp.chain || !isSmooth(a1) || a1 != a2 || pp.diffs[k] == nil || !finiteAll(pp.jointBox(k-1)) ||
		hasStructured(pp.f1, k) {
		return
	}
	for i := range pb.DiffPost[k] {
		pre1, dd := pb.Net1.Pre[k][i], pb.DiffPre[k][i]
		if !finiteAll([]Interval{pre1, dd}) || !(pre1.Lo < pre1.Hi) {
			continue
		}
		slices := sliceInterval(pre1, diffSlices)
		bd := pp.sliceBounds(k, i, slices)
		out := Interval{math.Inf(1), math.Inf(-1)}
		for s, a := range slices {
			ds := Interval{max(bd[s].Lo, dd.Lo), min(bd[s].Hi, dd.Hi)}
			if ds.Lo > ds.Hi {
				continue // no input puts xi1 in this slice
			}
			out = out.Hull(diffImage(a1, a, pb.Net2.Pre[k][i].Intersect(a.Add(ds)), ds))
		}
		if out.Lo <= out.Hi {
			pb.DiffPost[k][i] = pb.DiffPost[k][i].Intersect(out)
		}
	}
}

// sliceInterval cuts x into n closed slices that cover it.
func sliceInterval(x Interval, n int) []Interval {
	out := make([]Interval, n)
	lo := x.Lo
	for s := range out {
		hi := x.Hi
		if s < n-1 {
			hi = min(x.Lo+(x.Hi-x.Lo)*float64(s+1)/float64(n), x.Hi)
		}
		out[s] = Interval{lo, max(lo, hi)}
		lo = out[s].Hi
	}
	return out
}

// sliceBounds returns, per slice A_s of neuron i of layer k, an enclosure
// of d = xi2_i - xi1_i over the inputs with xi1_i in A_s: one row per
// slice, sign and kappa, back-substituted together.
func (pp *pairProp) sliceBounds(k, i int, slices []Interval) []Interval {
	dl, l1 := pp.diffs[k], pp.f1.Layers[k]
	w2 := pp.f2.Layers[k].W.RawMatrix()
	w1 := l1.W.RawMatrix()
	m := dl.cols
	vmag := mags(pp.jointBox(k - 1))
	type rowOf struct {
		s     int
		sign  float64
		kappa float64
	}
	var rows []rowOf
	for s := range slices {
		for _, sign := range []float64{1, -1} {
			for _, kappa := range sliceKappas {
				rows = append(rows, rowOf{s, sign, kappa})
			}
		}
	}
	form := &linearForm{Lam: mat.NewDense(len(rows), 2*m, nil), C: make([]float64, len(rows)), E: make([]float64, len(rows))}
	lr := form.Lam.RawMatrix()
	for r, ro := range rows {
		// sign d + kappa xi1 = (sign dW + kappa W1) z1 + sign W2 delta + sign dB + kappa b1,
		// each sum with its exact rounding error (TwoSum, FMA) in E.
		e := 0.0
		for j := range m {
			v, err := combine(ro.sign*dl.dW[i*m+j], ro.kappa, w1.Data[i*w1.Stride+j])
			lr.Data[r*lr.Stride+j] = v
			e = outward.AddUp(e, outward.MulUp(err, vmag[j]))
			lr.Data[r*lr.Stride+m+j] = ro.sign * w2.Data[i*w2.Stride+j]
		}
		c, err := combine(ro.sign*dl.dB[i], ro.kappa, l1.B[i])
		form.C[r], form.E[r] = c, outward.AddUp(e, err)
	}
	idx := make([]int, len(rows))
	for r := range idx {
		idx[r] = i
	}
	below := pp.pb.Net1.In
	if k > 0 {
		below = pp.pb.Net1.Post[k-1]
	}
	addRadius(form, dl, idx, below)
	ub := pp.jointBackSubstitute(form, k-1, nil)
	out := make([]Interval, len(slices))
	for s := range out {
		out[s] = Interval{math.Inf(-1), math.Inf(1)}
	}
	for r, ro := range rows {
		a := slices[ro.s]
		end := a.Lo
		if ro.kappa < 0 {
			end = a.Hi
		}
		v := outward.SubUp(ub[r], outward.MulDown(ro.kappa, end)) // >= sign d on the slice
		if ro.sign > 0 {
			out[ro.s].Hi = min(out[ro.s].Hi, v)
		} else {
			out[ro.s].Lo = max(out[ro.s].Lo, -v)
		}
	}
	return out
}

// combine returns fl(x + kappa y) and a bound of its rounding error.
func combine(x, kappa, y float64) (v, err float64) {
	p := kappa * y
	ep := math.FMA(kappa, y, -p)
	s, es := outward.TwoSum(x, p)
	return s, outward.AddUp(math.Abs(es), math.Abs(ep))
}
