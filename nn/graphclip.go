package nn

import "math"

// A clipping with bounds per value, y_i = min(max(x_i, lo_i), hi_i), is in
// a graph, exactly, as the ONNX reader writes it: for each kind of bounds
// a Gather of the values that have them and a ReLU or HardTanh (none for
// no bounds), the parts concatenated, and a Gather putting every value
// back in place (which Fuse may merge into the next map). A chain has one
// activation per layer, so Chain writes the parts and their concatenation
// as a selection followed by Clip's layers, exact in real arithmetic.

// clipPart is one kind of bounds of a clipping: the gather that selects its
// values, and the bounds.
type clipPart struct {
	g      *Gather
	value  int // of the part's output
	lo, hi float64
}

// clipGroup reports whether the nodes from k on are clippings of
// selections of value k, concatenated, each value between them read only
// within them: value q of the concatenation is x_{src[q]} clipped to
// [lo[q], hi[q]]. span is the number of nodes, the concatenation last.
func (g *Graph) clipGroup(k int, readers [][]int) (src []int, lo, hi []float64, span int, ok bool) {
	n := g.Size(k)
	var parts []clipPart
	j := k
	for j < len(g.Nodes) {
		sel, isSel := gatherOf(g.Nodes[j], k, n)
		if !isSel || len(readers[j+1]) != 1 {
			break
		}
		p := clipPart{g: sel, value: j + 1, lo: math.Inf(-1), hi: math.Inf(1)}
		j++
		if j < len(g.Nodes) && g.Nodes[j].Inputs[0] == p.value {
			if l, h, isClip := clipBounds(g.Nodes[j].Op); isClip && len(readers[j+1]) == 1 {
				p.value, p.lo, p.hi = j+1, l, h
				j++
			}
		}
		parts = append(parts, p)
	}
	if len(parts) < 2 || j >= len(g.Nodes) {
		return nil, nil, nil, 0, false
	}
	if _, isConcat := g.Nodes[j].Op.(Concat); !isConcat || len(g.Nodes[j].Inputs) != len(parts) {
		return nil, nil, nil, 0, false
	}
	for i, p := range parts {
		if g.Nodes[j].Inputs[i] != p.value {
			return nil, nil, nil, 0, false
		}
		for _, s := range p.g.Index {
			if s < 0 {
				return nil, nil, nil, 0, false
			}
			src, lo, hi = append(src, s), append(lo, p.lo), append(hi, p.hi)
		}
	}
	return src, lo, hi, j + 1 - k, true
}

// gatherOf returns the selection of node nd when it is a gather without
// bias reading value v of n values.
func gatherOf(nd Node, v, n int) (*Gather, bool) {
	a, ok := nd.Op.(*Affine)
	if !ok || a.B != nil || nd.Inputs[0] != v {
		return nil, false
	}
	sel, ok := a.M.(*Gather)
	return sel, ok && sel.N == n
}

// clipBounds returns the bounds of a ReLU or HardTanh activation, a bound
// of the largest float64 magnitude standing for an infinite one.
func clipBounds(op Op) (lo, hi float64, ok bool) {
	a, isAct := op.(Act)
	switch {
	case !isAct:
		return 0, 0, false
	case a.Act.Kind == ReLU:
		return 0, math.Inf(1), true
	case a.Act.Kind == HardTanh:
		lo, hi = a.Act.Lo, a.Act.Hi
		if lo == -math.MaxFloat64 {
			lo = math.Inf(-1)
		}
		if hi == math.MaxFloat64 {
			hi = math.Inf(1)
		}
		return lo, hi, true
	}
	return 0, 0, false
}
