package align

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
)

// identitySlack is the relative margin by which the optimal assignment
// must beat the identity for neurons to be moved.
const identitySlack = 1e-9

// alignLayer aligns the neurons of hidden layer k of h (a copy of g whose
// layers before k are aligned) with those of f, rewriting layers k and
// k+1 of h.
func alignLayer(f, h *nn.Network, k int) LayerReport {
	fl := f.Layers[k]
	rep := LayerReport{Layer: k}
	dead := deadNeurons(h, k)
	for _, d := range dead {
		if d {
			rep.Dead++
		}
	}
	nf, ng := fl.Out(), h.Layers[k].Out()
	if in := h.Layers[k].In(); in != fl.In() {
		rep.Unmatched = nf
		rep.Reason = fmt.Sprintf("its inputs are not aligned (f's layer takes %d, g's %d)", fl.In(), in)
		return rep
	}
	switch {
	case ng > nf:
		var keep []int
		excess := ng - nf
		for j := ng - 1; j >= 0; j-- {
			if excess > 0 && removable(h, k, j) {
				excess--
				continue
			}
			keep = append([]int{j}, keep...)
		}
		if excess > 0 {
			rep.Unmatched = nf
			rep.Reason = fmt.Sprintf("g has %d more neurons than f but only %d can be removed exactly", ng-nf, ng-nf-excess)
			return rep
		}
		reindex(h, k, keep)
		rep.Removed = ng - nf
		dead = deadNeurons(h, k)
	case ng < nf:
		src := make([]int, nf)
		for i := range src {
			src[i] = -1
			if i < ng {
				src[i] = i
			} else {
				dead = append(dead, true)
			}
		}
		reindex(h, k, src)
		rep.Padded = nf - ng
	}
	cost, ok := costs(fl, h.Layers[k], dead)
	if !ok {
		rep.Unmatched = nf
		rep.Reason = "the distances between neurons overflow"
		return rep
	}
	a, total := assign(cost)
	for i := range nf {
		rep.IdentityCost += cost[i][i]
	}
	rep.Cost = total
	if rep.IdentityCost <= total+identitySlack*total {
		for i := range a {
			a[i] = i
		}
		rep.Cost = rep.IdentityCost
	}
	reindex(h, k, a)
	for i, j := range a {
		if dead[j] {
			rep.Unmatched++
		} else {
			rep.Matched++
		}
		if j != i && j < min(ng, nf) {
			rep.Moved++
		}
	}
	return rep
}

// costs returns the squared distances between the [row, bias] of f's
// neurons (rows) and g's (columns), 0 for a dead neuron of g, and false
// if one is not finite. Inputs g does not use (a zero column of g's
// layer: a pruned neuron of the layer before) are left out: f's weights
// there say nothing about which of g's neurons is which.
func costs(fl, gl nn.Layer, dead []bool) ([][]float64, bool) {
	n := len(dead)
	var used []int
	for c := range gl.In() {
		if !zeroCol(gl.W, c) {
			used = append(used, c)
		}
	}
	cost := make([][]float64, n)
	for i := range n {
		cost[i] = make([]float64, n)
		fr := fl.W.RawRowView(i)
		for j := range n {
			if dead[j] {
				continue
			}
			d := fl.B[i] - gl.B[j]
			c := d * d
			gr := gl.W.RawRowView(j)
			for _, c2 := range used {
				d := fr[c2] - gr[c2]
				c += d * d
			}
			if math.IsInf(c, 0) || math.IsNaN(c) {
				return nil, false
			}
			cost[i][j] = c
		}
	}
	return cost, true
}

// deadNeurons reports, for each neuron j of hidden layer k of h, whether
// it is dead: its outgoing column in layer k+1 is zero, or its row and
// bias are zero.
func deadNeurons(h *nn.Network, k int) []bool {
	l := h.Layers[k]
	dead := make([]bool, l.Out())
	for j := range dead {
		dead[j] = zeroCol(h.Layers[k+1].W, j) || (zeroRow(l.W, j) && l.B[j] == 0)
	}
	return dead
}

// removable reports whether neuron j of hidden layer k of h can be removed
// without changing any sum of layer k+1: its outgoing column is zero, or
// its output is exactly 0 (zero row and bias, act(0) = 0).
func removable(h *nn.Network, k, j int) bool {
	l := h.Layers[k]
	return zeroCol(h.Layers[k+1].W, j) || (zeroRow(l.W, j) && l.B[j] == 0 && l.Act.Apply(0) == 0)
}

// zeroRow reports whether row i of w is zero.
func zeroRow(w *mat.Dense, i int) bool {
	for _, v := range w.RawRowView(i) {
		if v != 0 {
			return false
		}
	}
	return true
}

// zeroCol reports whether column j of w is zero.
func zeroCol(w *mat.Dense, j int) bool {
	r, _ := w.Dims()
	for i := range r {
		if w.At(i, j) != 0 {
			return false
		}
	}
	return true
}

// reindex rewrites hidden layer k of h so that its neuron i is the old
// neuron src[i], or a dead one where src[i] < 0 (see nn.SelectNeurons).
// It panics on an index out of range, which alignLayer never builds.
func reindex(h *nn.Network, k int, src []int) {
	if err := h.SelectNeurons(k, src); err != nil {
		panic(err)
	}
}
