package nn

import (
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Fuse merges each affine node into the affine node it reads when nothing
// else reads the value between them (and it is not the output), and the
// merged map is no larger than the two:
//
//	scale then scale              a scale
//	conv then a scale per output channel, or a scale per input channel
//	then conv                     the convolution, its kernel scaled
//	row map then a scale repeating on each output row, or such a scale
//	then a row map                the row map, its matrix scaled
//	gather then gather            a gather
//	a shift (scale 1) before or after any map   that map, its bias moved
//	dense with dense, a scale or a gather       a dense matrix of at most
//	                              limit entries, no more than the two hold
//
// A convolution, a pool or a join never becomes a dense matrix, so memory
// grows with the activations, never with their square. The merged graph
// computes the same function up to the rounding of the merged products.
func (g *Graph) Fuse(limit int) {
	for {
		readers := g.Readers()
		dead := make([]bool, len(g.Nodes))
		fused := false
		for k, n := range g.Nodes {
			second, ok := n.Op.(*Affine)
			v := n.Inputs[0]
			if !ok || v == 0 || len(readers[v]) != 1 || dead[v-1] {
				continue
			}
			first, ok := g.Nodes[v-1].Op.(*Affine)
			if !ok {
				continue
			}
			if f := fuseAffine(first, second, limit); f != nil {
				g.Nodes[k].Op, g.Nodes[k].Inputs = f, slices.Clone(g.Nodes[v-1].Inputs)
				dead[v-1], fused = true, true
			}
		}
		if !fused {
			return
		}
		g.drop(dead)
	}
}

// Prune removes the nodes that the output (the last node) does not depend
// on.
func (g *Graph) Prune() {
	live := make([]bool, len(g.Nodes)+1)
	live[len(g.Nodes)] = true
	dead := make([]bool, len(g.Nodes))
	for k := len(g.Nodes) - 1; k >= 0; k-- {
		dead[k] = !live[k+1]
		for _, v := range g.Nodes[k].Inputs {
			live[v] = live[v] || live[k+1]
		}
	}
	g.drop(dead)
}

// drop removes the nodes marked dead, which no node reads, renumbering the
// values.
func (g *Graph) drop(dead []bool) {
	renum := make([]int, len(g.Nodes)+1)
	kept := g.Nodes[:0]
	for k, n := range g.Nodes {
		if dead[k] {
			continue
		}
		for i, v := range n.Inputs {
			n.Inputs[i] = renum[v]
		}
		kept = append(kept, n)
		renum[k+1] = len(kept)
	}
	g.Nodes = kept
}

// fuseAffine returns y = second(first(x)) as one affine map when one of
// Fuse's rules applies, nil otherwise.
func fuseAffine(first, second *Affine, limit int) *Affine {
	bias := func() []float64 { // second's map applied to first's bias, plus second's bias
		if first.B == nil {
			return slices.Clone(second.B)
		}
		b := make([]float64, second.M.Out())
		second.M.Apply(b, first.B)
		for i, v := range second.B {
			b[i] += v
		}
		return b
	}
	s1, isScale1 := first.M.(*Scale)
	s2, isScale2 := second.M.(*Scale)
	switch {
	case isScale2 && allOnes(s2.S):
		b := slices.Clone(first.B)
		if b == nil {
			b = make([]float64, first.M.Out())
		}
		for i, v := range second.B {
			b[i] += v
		}
		return &Affine{M: first.M, B: b}
	case isScale1 && allOnes(s1.S):
		return &Affine{M: second.M, B: bias()}
	case isScale1 && isScale2:
		s := make([]float64, len(s1.S))
		for i, v := range s1.S {
			s[i] = s2.S[i] * v
		}
		return &Affine{M: &Scale{s}, B: bias()}
	}
	if m := fuseStructured(first.M, second.M); m != nil {
		return &Affine{M: m, B: bias()}
	}
	if m := fuseDense(first.M, second.M, limit); m != nil {
		return &Affine{M: m, B: bias()}
	}
	return nil
}

// fuseStructured returns second∘first for a convolution with a scale per
// channel next to it, a row map with a scale repeating on each of its
// rows next to it, and for two gathers, or nil.
func fuseStructured(first, second Linear) Linear {
	switch a := first.(type) {
	case *Conv2D:
		if s, ok := second.(*Scale); ok && perChannel(s.S, a.OutC) {
			c := a.Clone()
			per, plane := len(c.Kernel)/c.OutC, c.OutH*c.OutW
			for k := range c.Kernel {
				c.Kernel[k] *= s.S[k/per*plane]
			}
			return c
		}
	case *RowMap:
		if s, ok := second.(*Scale); ok && periodic(s.S, a.Out()/a.Rows) {
			w := mat.DenseCopyOf(a.W)
			w.Apply(func(i, _ int, v float64) float64 { return v * s.S[i] }, w)
			return &RowMap{W: w, Rows: a.Rows}
		}
	case *Scale:
		if r, ok := second.(*RowMap); ok && periodic(a.S, r.In()/r.Rows) {
			w := mat.DenseCopyOf(r.W)
			w.Apply(func(_, j int, v float64) float64 { return v * a.S[j] }, w)
			return &RowMap{W: w, Rows: r.Rows}
		}
		if c, ok := second.(*Conv2D); ok && perChannel(a.S, c.InC) {
			c = c.Clone()
			cg, plane, per, kk := c.InC/c.Groups, c.InH*c.InW, c.OutC/c.Groups, c.KH*c.KW
			for k := range c.Kernel {
				m, ci := k/(cg*kk), k/kk%cg
				c.Kernel[k] *= a.S[(m/per*cg+ci)*plane]
			}
			return c
		}
	case *Gather:
		if b, ok := second.(*Gather); ok {
			idx := make([]int, len(b.Index))
			for i, j := range b.Index {
				idx[i] = -1
				if j >= 0 {
					idx[i] = a.Index[j]
				}
			}
			return &Gather{N: a.N, Index: idx}
		}
	}
	return nil
}

// fuseDense returns second∘first as a dense matrix when one of them is
// dense, the other dense, a scale or a gather, and the product has at most
// limit entries and no more than the two maps hold; nil otherwise.
func fuseDense(first, second Linear, limit int) Linear {
	d1, dense1 := first.(DenseMap)
	d2, dense2 := second.(DenseMap)
	if !(dense1 || dense2) || !denseable(first) || !denseable(second) {
		return nil
	}
	r, c := second.Out(), first.In()
	if r > limit/max(c, 1) || r*c > entries(first)+entries(second) {
		return nil
	}
	w := mat.NewDense(r, c, nil)
	switch {
	case dense1 && dense2:
		w.Mul(d2.W, d1.W)
	case dense1: // apply second to each column of W1
		col, out := make([]float64, first.Out()), make([]float64, r)
		for j := range c {
			mat.Col(col, j, d1.W)
			second.Apply(out, col)
			w.SetCol(j, out)
		}
	default: // apply first^T to each row of W2
		row := make([]float64, c)
		for i := range r {
			first.ApplyTransposed(row, d2.W.RawRowView(i))
			w.SetRow(i, row)
		}
	}
	return DenseMap{w}
}

// denseable reports whether m may be merged into a dense matrix: a dense
// map, a scale or a gather, never a convolution or a pool.
func denseable(m Linear) bool {
	switch m.(type) {
	case DenseMap, *Scale, *Gather:
		return true
	}
	return false
}

// entries returns the number of values that hold m.
func entries(m Linear) int {
	if d, ok := m.(DenseMap); ok {
		return d.In() * d.Out()
	}
	return m.Out()
}

// allOnes reports whether every value of s is 1.
func allOnes(s []float64) bool {
	for _, v := range s {
		if v != 1 {
			return false
		}
	}
	return true
}

// periodic reports whether s repeats with period k: s[i] = s[i mod k].
func periodic(s []float64, k int) bool {
	if k < 1 || len(s)%k != 0 {
		return false
	}
	for i := k; i < len(s); i++ {
		if s[i] != s[i%k] {
			return false
		}
	}
	return true
}
