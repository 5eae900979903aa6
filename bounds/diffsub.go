package bounds

import (
	"math"
	"slices"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Back-substitution of differences through the joint variables (z1^j,
// delta^j) of the layers of two networks of equal widths (pairprop.go).

// tightenDiff intersects DiffPre[k] (k > 0) with the bounds of joint
// back-substitution and, with slope optimisation, of optimised slopes of
// network 1's free lines.
func (pp *pairProp) tightenDiff(k int) {
	d := pp.pb.DiffPre[k]
	n1, n2 := pp.pb.Net1, pp.pb.Net2
	a1, a2 := pp.f1.Layers[k].Act, pp.f2.Layers[k].Act
	unstable := pp.sym1.unstableOnly && hasKinks(a1) && hasKinks(a2)
	if unstable || !pp.allNeeded(k) {
		rows, sign := kinkRows(d, func(i int) bool {
			return pp.needed(k, i) && (!unstable || straddlesKink(a1, n1.Pre[k][i]) || straddlesKink(a2, n2.Pre[k][i]))
		})
		if len(rows) > 0 {
			intersectRows(d, rows, sign, pp.diffBackSubstitute(k, rows, sign, nil))
		}
	} else {
		hi := pp.diffBackSubstitute(k, nil, nil, nil)
		lo := pp.diffBackSubstitute(k, nil, negOnes(len(d)), nil)
		for i := range d {
			d[i] = d[i].Intersect(Interval{-lo[i], hi[i]})
		}
	}
	if pp.opt == nil || !pp.opt.Differences || hasStructured(pp.f1, k) {
		return
	}
	var rows []int
	var sign []float64
	for i := range d {
		// Where both neurons are stable on a flat piece the difference does
		// not matter (a ReLU that is off in both networks).
		if hasKinks(a1) && a1 == a2 && !straddlesKink(a1, n1.Pre[k][i]) && !straddlesKink(a1, n2.Pre[k][i]) &&
			SlopeRange(a1, n1.Pre[k][i].Hull(n2.Pre[k][i])) == Point(0) || !pp.needed(k, i) {
			continue
		}
		rows = append(rows, i, i)
		sign = append(sign, 1, -1)
	}
	if len(rows) == 0 {
		return
	}
	lam, b := pp.diffTarget(k)
	ov := pp.optimiseJoint(k-1, lam, b, rows, sign)
	if ov == nil {
		return
	}
	intersectRows(d, rows, sign, pp.diffBackSubstitute(k, rows, sign, ov))
	releaseSlopes(ov)
}

// allNeeded reports whether every difference of layer k is tightened:
// all but those of the output layer (the last of both networks) that
// Options.Outputs leaves out.
func (pp *pairProp) allNeeded(k int) bool {
	return pp.sym1.allNeeded(k) || pp.sym2.allNeeded(k)
}

// needed reports whether the difference i of layer k is tightened
// (allNeeded).
func (pp *pairProp) needed(k, i int) bool {
	return pp.allNeeded(k) || slices.Contains(pp.sym1.outputs, i)
}

// optimiseJoint returns slopes for network 1's free lines in the joint
// levels 0..level optimised for the targets sign[r] (lam v + b)_{rows[r]}
// on the joint variables v of level, or nil when there is nothing to
// optimise.
func (pp *pairProp) optimiseJoint(level int, lam *mat.Dense, b []float64, rows []int, sign []float64) []*rowSlopes {
	levels := make([]chainLevel, level+1)
	nfree := 0
	for j := range levels {
		levels[j] = chainLevel{rel: pp.jointStep[j], free: &pp.jointFree[j], w: pp.jointW[j].RawMatrix(), b: pp.jointB[j]}
		nfree += pp.jointFree[j].count
		if !finiteAll(pp.jointBox(j)) {
			return nil
		}
	}
	in := pp.jointBox(-1)
	if nfree == 0 || !finiteAll(in) {
		return nil
	}
	lam0, c0 := targetRows(lam.RawMatrix(), b, rows, sign)
	o := newSlopeOpt(levels, in, lam0, c0, pp.jointCompact)
	o.run(*pp.opt)
	return o.slopes
}

// jointFreeLines returns the free lines of the joint variables (z1, delta)
// of a layer: those of network 1's lines for z1 (fl), none for delta.
func jointFreeLines(fl *freeLines) freeLines {
	n := len(fl.side)
	pad := func(s []float64) []float64 { return append(append([]float64(nil), s...), make([]float64, n)...) }
	return freeLines{side: append(append([]int8(nil), fl.side...), make([]int8, n)...),
		lo: pad(fl.lo), hi: pad(fl.hi), count: fl.count}
}

// targetRows returns the rows sign[r] w_{rows[r]} (row-major) and the
// constants sign[r] b_{rows[r]}.
func targetRows(w blas64.General, b []float64, rows []int, sign []float64) (lam0, c0 []float64) {
	lam0 = make([]float64, len(rows)*w.Cols)
	c0 = make([]float64, len(rows))
	for r, t := range rows {
		for i, v := range w.Data[t*w.Stride : t*w.Stride+w.Cols] {
			lam0[r*w.Cols+i] = sign[r] * v
		}
		c0[r] = sign[r] * b[t]
	}
	return lam0, c0
}

// diffTarget returns the form of xi2^k - xi1^k on the joint variables of
// level k-1: (W2 - W1) z1 + W2 delta + (b2 - b1) (up to the radius of the
// parameter difference): the lower half of the joint matrix of level k
// where it is built, which must not be modified.
func (pp *pairProp) diffTarget(k int) (*mat.Dense, []float64) {
	dl := pp.diffs[k]
	if w := pp.jointW[k]; w != nil {
		r, c := w.Dims()
		return w.Slice(r/2, r, 0, c).(*mat.Dense), dl.dB
	}
	l2 := pp.f2.Layers[k]
	n, m := l2.Out(), l2.In()
	lam := mat.NewDense(n, 2*m, nil)
	for i := range n {
		for j := range m {
			lam.Set(i, j, dl.dW[i*m+j])
		}
	}
	lam.Slice(0, n, m, 2*m).(*mat.Dense).Copy(l2.W)
	return lam, dl.dB
}

// diffBackSubstitute returns upper bounds of sign[r] (xi2^k -
// xi1^k)_{rows[r]} (every neuron when rows is nil, sign +1 when sign is
// nil) by back-substitution through the joint variables of the layers
// below, row r using the slopes ov[j] of network 1's free lines in joint
// level j when ov is not nil.
func (pp *pairProp) diffBackSubstitute(k int, rows []int, sign []float64, ov []*rowSlopes) []float64 {
	if pp.f2.Layers[k].Conv != nil || hasStructured(pp.f1, k-1) {
		return pp.diffBackSubstituteRows(k, rows, sign)
	}
	lam, b := pp.diffTarget(k)
	form := newFormRows(lam, b, rows, sign)
	defer form.recycle()
	addRadius(form, pp.diffs[k], rows, pp.pb.Net1.Post[k-1])
	return pp.jointBackSubstitute(form, k-1, ov)
}

// structuredBatch is the number of target rows back-substituted together
// through structured layers: the rows are independent, and a batch bounds
// the memory of the forms (2 x 512 x the joint width).
const structuredBatch = 512

// diffBackSubstituteRows is diffBackSubstitute, without optimised slopes,
// when layer k or a layer below is structured: the target rows (of a
// dense matrix, or of diffRows) are back-substituted in batches.
func (pp *pairProp) diffBackSubstituteRows(k int, rows []int, sign []float64) []float64 {
	if rows == nil {
		rows = make([]int, pp.f2.Layers[k].Out())
		for i := range rows {
			rows[i] = i
		}
	}
	var lam *mat.Dense
	var b []float64
	if pp.f2.Layers[k].Conv == nil {
		lam, b = pp.diffTarget(k)
	}
	out := make([]float64, 0, len(rows))
	for lo := 0; lo < len(rows); lo += structuredBatch {
		hi := min(lo+structuredBatch, len(rows))
		var sg []float64
		if sign != nil {
			sg = sign[lo:hi]
		}
		var form *linearForm
		if lam != nil {
			form = newFormRows(lam, b, rows[lo:hi], sg)
		} else {
			form = pp.diffRows(k, rows[lo:hi], sg)
		}
		addRadius(form, pp.diffs[k], rows[lo:hi], pp.pb.Net1.Post[k-1])
		out = append(out, pp.jointBackSubstitute(form, k-1, nil)...)
		form.recycle()
	}
	return out
}

// jointBox returns the box of the joint variables (z1^j, delta^j) of layer
// j, or of (x1, x2 - x1) for j = -1.
func (pp *pairProp) jointBox(j int) []Interval { return pp.jointBoxTo(nil, j) }

// jointBoxTo is jointBox in dst's storage (dst[:0] appended to), for a
// back-substitution that takes one box per level: fresh boxes were a
// twelfth of the bytes a node of verify's branch and bound allocated.
func (pp *pairProp) jointBoxTo(dst []Interval, j int) []Interval {
	pb := pp.pb
	if j < 0 {
		return append(append(dst[:0], pb.Net1.In...), pb.DiffIn...)
	}
	return append(append(dst[:0], pb.Net1.Post[j]...), pb.DiffPost[j]...)
}

// jointBackSubstitute returns upper bounds of the targets of form, a linear
// form in the joint variables of layer level, by back-substitution down to
// the inputs, keeping the tightest concretisation at every level; with ov
// not nil, row r uses the slopes ov[j] in joint level j.
func (pp *pairProp) jointBackSubstitute(form *linearForm, level int, ov []*rowSlopes) []float64 {
	pb := pp.pb
	box := pp.jointBox(level) // each level's box in turn
	best := form.concretise(box)
	for j := level; j >= 0; j-- {
		var o *rowSlopes
		if ov != nil {
			o = ov[j]
		}
		mag := pooledMags(pb.Net1.Pre[j], pb.DiffPre[j])
		if o == nil {
			form.relaxPairs(pp.jointStep[j], pp.jointPairs[j], len(pb.Net1.Pre[j]), mag)
		} else {
			form.relaxStep(pp.jointStep[j], mag, o)
		}
		putFloats(mag)
		if r := pp.diffs[j]; r.rW != nil || r.rB != nil {
			below := pb.Net1.In
			if j > 0 {
				below = pb.Net1.Post[j-1]
			}
			addRadiusCols(form, r, below, r.rows)
		}
		box = pp.jointBoxTo(box, j-1)
		mag = pooledMags(box)
		if jc := pp.jointConv[j]; jc != nil {
			form.affineMap(jc, pp.jointB[j], pp.jointNoise[j], mag, nil, &pp.jointAbs[j])
		} else {
			form.affineJoint(pp.jointW[j], pp.jointB[j], pp.jointNoise[j], mag, &pp.jointAbs[j])
		}
		putFloats(mag)
		for i, v := range form.concretise(box) {
			best[i] = min(best[i], v)
		}
	}
	if pp.fixedX2 != nil {
		form.foldFixed(pp.fixedX2, mags(pb.Net1.In))
		for i, v := range form.concretise(pp.jointBoxTo(box, -1)) {
			best[i] = min(best[i], v)
		}
	}
	return best
}

// addRadius adds to the form's error the effect of the radius of the
// parameter difference dl on its targets, rows rows of the layer (all when
// nil): |rW| |z1| + |rB|, where z1 lies in the box z.
func addRadius(f *linearForm, dl *layerDiff, rows []int, z []Interval) {
	if dl.rW == nil && dl.rB == nil {
		return
	}
	rad := dl.radii(z)
	for r := range f.E {
		t := r
		if rows != nil {
			t = rows[r]
		}
		f.E[r] = outward.AddUp(f.E[r], rad[t])
	}
}

// addRadiusCols adds to the form's error, for the columns off..off+dl.rows
// of its coefficients (those on xi2 - xi1), |Lam| (|rW| |z1| + |rB|).
func addRadiusCols(f *linearForm, dl *layerDiff, z []Interval, off int) {
	rad := dl.radii(z)
	raw := f.Lam.RawMatrix()
	for r := range raw.Rows {
		s := 0.0
		for i, v := range rad {
			s += math.Abs(raw.Data[r*raw.Stride+off+i]) * v
		}
		f.E[r] = outward.AddUp(f.E[r], s*sumFactor(len(rad)))
	}
}

// radii returns, per row i, an upper bound of sum_j rW[i,j] |z_j| + rB[i].
func (dl *layerDiff) radii(z []Interval) []float64 {
	out := make([]float64, dl.rows)
	if dl.rW != nil && dl.conv != nil {
		dl.conv.WithKernel(dl.rW).Apply(out, mags(z))
	}
	for i := range out {
		s := out[i]
		if dl.rB != nil {
			s += dl.rB[i]
		}
		if dl.rW != nil && dl.conv == nil {
			for j := range dl.cols {
				s += dl.rW[i*dl.cols+j] * z[j].Mag()
			}
		}
		out[i] = s * sumFactor(dl.cols)
	}
	return out
}

// affineJoint is affineLayer for the substitution matrix of a joint level
// (jointRelax), w = [[W1, 0], [W2 - W1, W2]] of 2n x 2m, with the product
// taken by blocks of rows,
//
//	Lam w = [Lam_z W1, 0] + Lam_d [W2 - W1, W2],   Lam = [Lam_z, Lam_d],
//
// which skips the zero block, a quarter of the products. Every entry sums
// the same nonzero products as the whole product, the z ones first; the
// order may differ from the whole product's in the last bits, which the
// error bound of affineErr (for 2n products, in any order) covers.
func (f *linearForm) affineJoint(w *mat.Dense, b, noise, mag []float64, cache *absProduct) {
	f.affineErr(nn.AffineLayer(w, b), b, noise, mag, cache)
	lam, wr := f.Lam.RawMatrix(), w.RawMatrix()
	R, n, m := lam.Rows, wr.Rows/2, wr.Cols/2
	next := newScratch(R, 2*m, false)
	nr := next.RawMatrix()
	gemm(cache.packs(), blas.NoTrans, view(lam, 0, 0, R, n), view(wr, 0, 0, n, m), 0, view(nr, 0, 0, R, m))
	for r := range R {
		clear(nr.Data[r*nr.Stride+m : r*nr.Stride+2*m])
	}
	gemm(cache.packs(), blas.NoTrans, view(lam, 0, n, R, n), view(wr, n, 0, n, 2*m), 1, nr)
	f.replaceLam(next)
}
