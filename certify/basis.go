package certify

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/nnbound/nnbound/qc"
	"github.com/nnbound/nnbound/sdp"
)

// The factors of a neuron's terms are combinations of its output (one
// coordinate of eta), its pre-activation xi (a dense row of weights over
// the layer below) and the constant. Given to the solver as a dictionary
// (sdp.Basis) holding the pre-activation forms (of the first network, and
// the difference of the second's), each factor is a few
// coefficients instead of a dense vector, and the solver's Schur
// complement no longer pays for Gram matrices of thousands of dense
// factors. The dictionary only changes how the SDP is solved: every
// factor still carries its vector, and the check rebuilds the LMI from
// the terms whatever the solver was told.

// dictionary is the basis of the LMI blocks: the forms, in the SDP's
// coordinates, of the pre-activations that terms use.
type dictionary struct {
	layout *qc.Layout
	form   func(qc.Form) qc.Form // to the SDP's coordinates
	one    int                   // the constant's SDP coordinate, or -1
	vecs   []qc.Form
	index  map[[3]int]int // (net, layer, neuron) -> vector, or -1 for none
}

// split is a form as unit + sum_j beta[j] vecs[j].
type split struct {
	unit qc.Form
	beta map[int]float64
}

// splitTol is the relative residual below which a form counts as a
// combination of dictionary vectors: the two are the same quantity
// computed along two paths, so they differ by rounding.
const splitTol = 1e-11

// newDictionary returns an empty dictionary for the layout, form mapping
// forms to the SDP's coordinates and pos the SDP coordinate of each of
// eta's (see sdpCoords).
func newDictionary(l *qc.Layout, form func(qc.Form) qc.Form, pos []int) *dictionary {
	return &dictionary{layout: l, form: form, one: pos[l.One], index: map[[3]int]int{}}
}

// vector returns the dictionary index of the pre-activation of neuron i of
// layer k of network 1 (n = 0), or of the difference of the
// pre-activations of the two networks' neuron i of layer k (n = 1; the
// second network's own when the first has no such neuron), adding it;
// -1 when there is none. The difference is a vector of its own because
// the two are nearly equal for a fine-tuned or quantised copy: a factor
// written as their difference would lose its digits to cancellation.
func (d *dictionary) vector(n, k, i int) int {
	key := [3]int{n, k, i}
	if v, ok := d.index[key]; ok {
		return v
	}
	pre := func(net int) (qc.Form, bool) {
		lays := d.layout.Nets[net].Layers
		if k < len(lays) && i < len(lays[k].Pre) {
			return lays[k].Pre[i], true
		}
		return qc.Form{}, false
	}
	p1, ok1 := pre(0)
	f, ok := p1, ok1
	if n == 1 {
		p2, ok2 := pre(1)
		f, ok = p2, ok2
		if ok1 && ok2 {
			f = qc.Sub(p2, p1)
		}
	}
	v := -1
	if ok {
		if f = d.form(f); len(f.Idx) > 1 {
			v = len(d.vecs)
			d.vecs = append(d.vecs, f)
		}
	}
	d.index[key] = v
	return v
}

// candidates returns the dictionary vectors a term about one neuron (or a
// pair of corresponding neurons) may use: the first network's
// pre-activation of that neuron and the difference of the two networks'.
func (d *dictionary) candidates(where string) []int {
	var n, k, i int
	if _, err := fmt.Sscanf(where, "n%d.L%d[%d]", &n, &k, &i); err != nil {
		if _, err := fmt.Sscanf(where, "L%d[%d]", &k, &i); err != nil {
			return nil
		}
	}
	var out []int
	for net := range 2 {
		if v := d.vector(net, k, i); v >= 0 {
			out = append(out, v)
		}
	}
	return out
}

// split writes f (in the SDP's coordinates) as units plus a combination
// of the candidates of the term at where, or as units alone when no
// combination matches to splitTol.
func (d *dictionary) split(where string, f qc.Form) split {
	cs := d.candidates(where)
	tries := [][]int{cs}
	if len(cs) == 2 {
		tries = append(tries, cs[:1], cs[1:])
	}
	for _, try := range tries {
		if s, ok := d.trySplit(f, try); ok {
			return s
		}
	}
	return split{unit: f}
}

// trySplit fits f on the support of the vectors cs (the constant left
// out) by least squares and accepts the fit if its residual there is
// rounding.
func (d *dictionary) trySplit(f qc.Form, cs []int) (split, bool) {
	dense := map[int]float64{}
	for k, c := range f.Idx {
		dense[c] = f.Val[k]
	}
	onS := map[int]bool{}
	for _, v := range cs {
		for _, c := range d.vecs[v].Idx {
			if c != d.one {
				onS[c] = true
			}
		}
	}
	beta, ok := d.fit(dense, cs)
	if !ok {
		return split{}, false
	}
	// Residual: rounding on S, the units elsewhere.
	rest, mag := map[int]float64{}, map[int]float64{}
	for c, v := range dense {
		rest[c], mag[c] = v, math.Abs(v)
	}
	for a, v := range cs {
		x := d.vecs[v]
		for k, c := range x.Idx {
			rest[c] -= beta[a] * x.Val[k]
			mag[c] += math.Abs(beta[a] * x.Val[k])
		}
	}
	s := split{beta: map[int]float64{}}
	var idx []int
	for c := range rest {
		if onS[c] {
			if math.Abs(rest[c]) > splitTol*mag[c] {
				return split{}, false
			}
			continue
		}
		if rest[c] != 0 {
			idx = append(idx, c)
		}
	}
	slices.Sort(idx)
	s.unit = formOf(idx, rest)
	for a, v := range cs {
		if beta[a] != 0 {
			s.beta[v] += beta[a]
		}
	}
	return s, true
}

// fit returns the least-squares coefficients of f (dense) on the vectors
// cs (one or two) over their support without the constant, by
// Gram-Schmidt rather than normal equations, which would square the
// condition of two nearly parallel vectors.
func (d *dictionary) fit(f map[int]float64, cs []int) ([2]float64, bool) {
	var beta [2]float64
	if len(cs) == 0 || len(cs) > 2 {
		return beta, false
	}
	// The vectors as maps, and their support S (sorted, for a sum in a
	// fixed order).
	vs := make([]map[int]float64, len(cs))
	var sup []int
	for t, v := range cs {
		vs[t] = map[int]float64{}
		x := d.vecs[v]
		for k, c := range x.Idx {
			if c != d.one {
				vs[t][c] = x.Val[k]
				sup = append(sup, c)
			}
		}
	}
	slices.Sort(sup)
	sup = slices.Compact(sup)
	dotS := func(x, y map[int]float64) float64 {
		s := 0.0
		for _, c := range sup {
			s += x[c] * y[c]
		}
		return s
	}
	a := vs[0]
	aa := dotS(a, a)
	if aa == 0 {
		return beta, false
	}
	beta[0] = dotS(a, f) / aa
	if len(cs) == 1 {
		return beta, true
	}
	// b' = b - mu a is orthogonal to a; r = f - beta0 a.
	b := vs[1]
	mu := dotS(a, b) / aa
	bp, r := map[int]float64{}, map[int]float64{}
	for _, c := range sup {
		bp[c] = b[c] - mu*a[c]
		r[c] = f[c] - beta[0]*a[c]
	}
	bb := dotS(bp, bp)
	if !(bb > 1e-30*aa) {
		return beta, false
	}
	beta[1] = dotS(bp, r) / bb
	beta[0] -= beta[1] * mu
	return beta, true
}

// formOf returns the form with the coefficients val at the indices idx
// (increasing).
func formOf(idx []int, val map[int]float64) qc.Form {
	f := qc.Form{Idx: idx, Val: make([]float64, len(idx))}
	for k, c := range idx {
		f.Val[k] = val[c]
	}
	return f
}

// comb returns a*s + b*t.
func comb(a float64, s split, b float64, t split) split {
	out := split{unit: qc.Comb(a, s.unit, b, t.unit), beta: map[int]float64{}}
	for v, x := range s.beta {
		out.beta[v] += a * x
	}
	for v, x := range t.beta {
		out.beta[v] += b * x
	}
	return out
}

// coef returns s as the coefficients of a factor in the basis of a block
// of order size: unit c at c, vector j at size+j. It is empty (U in unit
// vectors) when s uses no vector.
func (s split) coef(size int) sdp.SparseVec {
	if len(s.beta) == 0 {
		return sdp.SparseVec{}
	}
	var c sdp.SparseVec
	idx, val := s.unit.Sparse()
	for k, ix := range idx {
		if val[k] != 0 {
			c.Index, c.Value = append(c.Index, ix), append(c.Value, val[k])
		}
	}
	for _, v := range slices.Sorted(maps.Keys(s.beta)) {
		if x := s.beta[v]; x != 0 {
			c.Index, c.Value = append(c.Index, size+v), append(c.Value, x)
		}
	}
	return c
}

// basis returns the dictionary as the sdp.Basis of block j.
func (d *dictionary) basis(j int) sdp.Basis {
	b := sdp.Basis{Block: j, Vecs: make([]sdp.SparseVec, len(d.vecs))}
	for v, f := range d.vecs {
		idx, val := f.Sparse()
		b.Vecs[v] = sdp.SparseVec{Index: append([]int(nil), idx...), Value: append([]float64(nil), val...)}
	}
	return b
}
