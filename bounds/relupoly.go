package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// The joint range of (a, d) at the first layer.
//
// With the same input x to both networks, a neuron of the first layer has
// a = w.x + b and d = (w2 - w).x + (b2 - b), both affine in x, so (a, d)
// ranges over a zonotope P inside the box pre1 x D, not over the whole
// box: a float16 copy's weight errors are nearly uncorrelated with the
// weights, and the corners where a and d are both extreme are out of
// reach. The support of P in a direction (al, be),
//
//	max over the input box of al a + be d = al b + be db + sum_j max((al w_j + be dw_j) x_j),
//
// is bounded with directed rounding for the four diagonals of the box
// (scaled by its sides), and the box is clipped by those half-planes, each
// moved out by 1e-9 of its scale (firstLayerPolygon). The computed polygon
// Q then contains P: the clip's rounding is far below the move. The
// per-row planes (relupair.go) take their offsets over Q: its vertices
// (exact float64 points), the points where its edges cross the kinks a = 0
// and a + d = 0 (computed to a few ulps, covered by pairNeuron.slack), and
// (0, 0) when it may be inside.

// polyMove is the relative distance each half-plane is moved out.
const polyMove = 1e-9

// firstLayerPolygon returns the points of the box pre1 x dd clipped by the
// supports of (a, d) = (xi1_i, xi2_i - xi1_i) of the first layer in the four
// diagonal directions, among which the extremes over the clipped polygon of
// h minus any plane lie (up to pairNeuron.slack); nil when the box is flat
// or a support is not finite. l1 is network 1's first layer, dl the
// parameter difference and x the input box.
func firstLayerPolygon(i int, pre1, dd Interval, l1 nn.Layer, dl *layerDiff, x []Interval) [][2]float64 {
	sa, sd := pre1.Hi-pre1.Lo, dd.Hi-dd.Lo
	if !(sa > 0 && sd > 0) || math.IsInf(sa, 0) || math.IsInf(sd, 0) {
		return nil
	}
	var hps [][3]float64
	for _, sg := range diagonals {
		al, be := sg[0]/sa, sg[1]/sd
		h := support(i, al, be, l1, dl, x)
		h += polyMove * (math.Abs(h) + math.Abs(al)*pre1.Mag() + math.Abs(be)*dd.Mag())
		if math.IsInf(h, 0) || math.IsNaN(h) {
			return nil
		}
		hps = append(hps, [3]float64{al, be, h})
	}
	return polygonPoints(pre1, dd, hps)
}

// support returns an upper bound of al a + be d over the input box x for
// neuron i of the first layer: the rounding of each coefficient (2u of its
// terms), the radius of the exact parameter difference (dl.rW, dl.rB) and
// the dot product's rounding go into a margin.
func support(i int, al, be float64, l1 nn.Layer, dl *layerDiff, x []Interval) float64 {
	w := l1.W.RawMatrix()
	row := w.Data[i*w.Stride : i*w.Stride+w.Cols]
	dW := dl.dW[i*dl.cols : (i+1)*dl.cols]
	s := al*l1.B[i] + be*dl.dB[i]
	abs := math.Abs(al*l1.B[i]) + math.Abs(be*dl.dB[i])
	m := 2 * outward.Unit * abs
	if dl.rB != nil {
		m += math.Abs(be) * dl.rB[i]
	}
	for j, v := range row {
		t1, t2 := al*v, be*dW[j]
		c := t1 + t2
		t := max(c*x[j].Lo, c*x[j].Hi)
		s += t
		abs += math.Abs(t)
		coefErr := 2*outward.Unit*(math.Abs(t1)+math.Abs(t2)) + 3*outward.Tiny
		if dl.rW != nil {
			coefErr += math.Abs(be) * dl.rW[i*dl.cols+j]
		}
		m += coefErr * x[j].Mag()
	}
	return outward.UpBy(s, m*sumFactor(len(row))+outward.DotErr(abs, len(row)+2))
}

// polygonPoints clips the box pre1 x dd by the half-planes al a + be d <= h
// of hps (Sutherland-Hodgman) and returns the clipped polygon's vertices,
// the points where its edges cross a = 0 and a + d = 0, and (0, 0) when the
// box and every half-plane hold it; nil when the clip is empty.
func polygonPoints(pre1, dd Interval, hps [][3]float64) [][2]float64 {
	poly := [][2]float64{{pre1.Lo, dd.Lo}, {pre1.Hi, dd.Lo}, {pre1.Hi, dd.Hi}, {pre1.Lo, dd.Hi}}
	for _, hp := range hps {
		poly = clipEdges(poly, func(p [2]float64) float64 { return hp[0]*p[0] + hp[1]*p[1] - hp[2] }, true)
		if len(poly) == 0 {
			return nil
		}
	}
	pts := append([][2]float64(nil), poly...)
	pts = append(pts, clipEdges(poly, func(p [2]float64) float64 { return p[0] }, false)...)
	pts = append(pts, clipEdges(poly, func(p [2]float64) float64 { return p[0] + p[1] }, false)...)
	inside := pre1.Lo <= 0 && pre1.Hi >= 0 && dd.Lo <= 0 && dd.Hi >= 0
	for _, hp := range hps {
		inside = inside && hp[2] >= 0
	}
	if inside {
		pts = append(pts, [2]float64{0, 0})
	}
	return pts
}

// clipEdges walks the edges of the closed polygon poly: with keep, it
// returns the polygon clipped to f <= 0 (the vertices kept and the
// crossings); without, only the points where edges cross f = 0.
func clipEdges(poly [][2]float64, f func([2]float64) float64, keep bool) [][2]float64 {
	var out [][2]float64
	n := len(poly)
	for i := range n {
		p, q := poly[i], poly[(i+1)%n]
		fp, fq := f(p), f(q)
		if keep && fp <= 0 {
			out = append(out, p)
		}
		if (fp < 0 && fq > 0) || (fp > 0 && fq < 0) {
			t := fp / (fp - fq)
			out = append(out, [2]float64{p[0] + t*(q[0]-p[0]), p[1] + t*(q[1]-p[1])})
		}
	}
	return out
}

// slack returns a bound on the change of lz relu(a) + ld g(a, d) - A a - B d
// when (a, d) moves by the error of a computed crossing of a kink, 32u of
// the box's magnitudes in each coordinate (0 for the box's own vertices,
// which are exact). relu(a) moves by at most |da| and g by 2 |da| + |dd|.
func (p *pairNeuron) slack(lz, ld, A, B float64) float64 {
	if !p.poly {
		return 0
	}
	e := 32 * outward.Unit * (p.pre1.Mag() + p.dd.Mag())
	return 2 * e * (math.Abs(lz) + 3*math.Abs(ld) + math.Abs(A) + math.Abs(B))
}

// plainSameInput reports whether both networks get the same input and their
// first layers have no noise (quantised.go): their pre-activations are then
// exactly affine in it.
func (pp *pairProp) plainSameInput() bool {
	return pp.diffs[0] != nil && allZero(pp.pb.DiffIn) && pp.m1.layerNoise(0) == nil && pp.m2.layerNoise(0) == nil
}

// Below the first layer (a, d) is no longer affine in the input, but the
// supports of al a + be d along the four diagonals are bounded the same way
// as the difference itself, by back-substitution through the joint
// variables of the layers below (diffsub.go), and clip the box likewise.

// diagonals are the signs of the four diagonal directions of a box.
var diagonals = [4][2]float64{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}}

// jointPolygons returns, per neuron of layer k > 0 whose pre-activation in
// network 1 straddles 0, the points of its box of (a, d) clipped by the
// supports along its diagonals (polygonPoints), nil for the others and
// when layer k has noise or is a structured (convolutional) layer.
func (pp *pairProp) jointPolygons(k int, l1 nn.Layer) [][][2]float64 {
	pb := pp.pb
	if pp.m1.layerNoise(k) != nil || pp.m2.layerNoise(k) != nil || l1.Conv != nil {
		return nil
	}
	n, m := l1.Out(), l1.In()
	var idx []int
	for i := range n {
		pre1, dd := pb.Net1.Pre[k][i], pb.DiffPre[k][i]
		if pre1.Lo < 0 && pre1.Hi > 0 && dd.Hi > dd.Lo && finiteAll([]Interval{pre1, dd}) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	lamD, bD := pp.diffTarget(k)
	dl := pp.diffs[k]
	z, del := pb.Net1.Post[k-1], pb.DiffPost[k-1]
	// Every entry of the form is set below: pooled storage need not be zeroed.
	form := &linearForm{Lam: newScratch(4*len(idx), 2*m, false), C: make([]float64, 4*len(idx)), E: make([]float64, 4*len(idx))}
	w1, ld := l1.W.RawMatrix(), lamD.RawMatrix()
	rad := dl.radii(z)
	for q, i := range idx {
		sa, sd := pb.Net1.Pre[k][i].Hi-pb.Net1.Pre[k][i].Lo, pb.DiffPre[k][i].Hi-pb.DiffPre[k][i].Lo
		for r, sg := range diagonals {
			al, be := sg[0]/sa, sg[1]/sd
			row, rw := 4*q+r, form.Lam.RawMatrix()
			dst := rw.Data[row*rw.Stride : row*rw.Stride+2*m]
			t1, t2 := al*l1.B[i], be*bD[i]
			form.C[row] = t1 + t2
			e := 2 * outward.Unit * (math.Abs(t1) + math.Abs(t2))
			for j := range m {
				a1, a2 := al*w1.Data[i*w1.Stride+j], be*ld.Data[i*ld.Stride+j]
				dst[j] = a1 + a2
				b2 := be * ld.Data[i*ld.Stride+m+j]
				dst[m+j] = b2
				e += (2*outward.Unit*(math.Abs(a1)+math.Abs(a2))+3*outward.Tiny)*z[j].Mag() +
					(2*outward.Unit*math.Abs(b2)+outward.Tiny)*del[j].Mag()
			}
			e = e*sumFactor(2*m) + math.Abs(be)*rad[i]
			form.E[row] = outward.UpBy(e, outward.Tiny)
		}
	}
	ub := pp.jointBackSubstitute(form, k-1, nil)
	form.recycle()
	out := make([][][2]float64, n)
	for q, i := range idx {
		pre1, dd := pb.Net1.Pre[k][i], pb.DiffPre[k][i]
		hps := make([][3]float64, 0, 4)
		for r, sg := range diagonals {
			al, be := sg[0]/(pre1.Hi-pre1.Lo), sg[1]/(dd.Hi-dd.Lo)
			h := ub[4*q+r]
			h += polyMove * (math.Abs(h) + math.Abs(al)*pre1.Mag() + math.Abs(be)*dd.Mag())
			if math.IsInf(h, 0) || math.IsNaN(h) {
				hps = nil
				break
			}
			hps = append(hps, [3]float64{al, be, h})
		}
		if hps != nil {
			out[i] = polygonPoints(pre1, dd, hps)
		}
	}
	return out
}
