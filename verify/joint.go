package verify

import (
	"fmt"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
	"gonum.org/v1/gonum/mat"
)

// joint is the network DecideRelational bounds: f and g side by side on
// one input, followed by the atoms' linear forms. Its input is
//
//	z = (u, w),  x_f = u,  x_g[i] = u_i + w_i (linked i),  x_g[i] = w_i (others),
//
// so that a tied coordinate (w_i in [0, 0]) keeps f and g reading the same
// variable, which symbolic bounds exploit, and a bounded difference is
// the width of w_i. Its outputs are, per atom a (in the order of the
// conjunctions), sum a.F y_f + sum a.G y_g without the constant C: every
// entry of every matrix is a weight of f or g or a coefficient as read,
// so the network computes these forms exactly in the reals.
type joint struct {
	net    *nn.Network
	nf, ng int   // inputs of f and of g (ng = 0 for one network)
	linked []int // per coordinate of g, the link's index in r.Links, or -1
	atoms  []spec.OutputAtom
	conj   [][]int // per conjunction, the indices of its atoms
}

// newJoint builds the joint network of f, g and r. f and g must be dense
// chains of the same depth with the same activation on each layer and no
// quantisers (g is ignored for a property of one network); other pairs
// wrap ErrPairUnsupported.
func newJoint(f, g *nn.Network, r *spec.Relational) (*joint, error) {
	nets := []*nn.Network{f}
	if !r.Single() {
		nets = append(nets, g)
	}
	for i, n := range nets {
		if n.Input != nil || n.Quantised() {
			return nil, fmt.Errorf("verify: network %d has quantisers: %w", i+1, ErrPairUnsupported)
		}
		if err := n.RequireDense("verify"); err != nil {
			return nil, fmt.Errorf("verify: network %d: %v: %w", i+1, err, ErrPairUnsupported)
		}
	}
	j := &joint{nf: f.InputSize()}
	if !r.Single() {
		if len(g.Layers) != len(f.Layers) {
			return nil, fmt.Errorf("verify: f has %d layers, g %d; a relational property needs equal depths: %w", len(f.Layers), len(g.Layers), ErrPairUnsupported)
		}
		for k := range f.Layers {
			if f.Layers[k].Act != g.Layers[k].Act {
				return nil, fmt.Errorf("verify: layer %d has activation %v in f and %v in g: %w", k+1, f.Layers[k].Act.Kind, g.Layers[k].Act.Kind, ErrPairUnsupported)
			}
		}
		j.ng = g.InputSize()
		j.linked = make([]int, j.ng)
		for i := range j.linked {
			j.linked[i] = -1
		}
		for li, l := range r.Links {
			j.linked[l.I] = li
		}
	}
	j.net = &nn.Network{}
	for k := range f.Layers {
		j.net.Layers = append(j.net.Layers, j.layer(nets, k))
	}
	mf := f.OutputSize()
	for _, c := range r.Unsafe {
		var idx []int
		for _, a := range c {
			idx = append(idx, len(j.atoms))
			j.atoms = append(j.atoms, a)
		}
		j.conj = append(j.conj, idx)
	}
	w := mat.NewDense(len(j.atoms), j.net.OutputSize(), nil)
	for i, a := range j.atoms {
		for _, t := range a.F {
			w.Set(i, t.K, w.At(i, t.K)+t.Coef)
		}
		for _, t := range a.G {
			w.Set(i, mf+t.K, w.At(i, mf+t.K)+t.Coef)
		}
	}
	j.net.Layers = append(j.net.Layers, nn.AffineLayer(w, make([]float64, len(j.atoms))))
	return j, nil
}

// layer returns layer k of the joint network: block diagonal, except the
// first layer, where g's columns of linked coordinates also read u.
func (j *joint) layer(nets []*nn.Network, k int) nn.Layer {
	rows, cols := 0, 0
	for _, n := range nets {
		rows += n.Layers[k].Out()
		cols += n.Layers[k].In()
	}
	w := mat.NewDense(rows, cols, nil)
	var b []float64
	r0, c0 := 0, 0
	for ni, n := range nets {
		l := n.Layers[k]
		w.Slice(r0, r0+l.Out(), c0, c0+l.In()).(*mat.Dense).Copy(l.W)
		if k == 0 && ni == 1 {
			for i, li := range j.linked {
				if li >= 0 {
					for o := range l.Out() {
						w.Set(r0+o, i, l.W.At(o, i))
					}
				}
			}
		}
		b = append(b, l.B...)
		r0, c0 = r0+l.Out(), c0+l.In()
	}
	return nn.Layer{W: w, B: b, Act: nets[0].Layers[k].Act}
}

// box returns the joint input box of r: u in BoxF; w_i in the link's
// range intersected with BoxG_i - BoxF_i (rounded outwards) for linked
// coordinates, in BoxG_i for the others. ok is false when the set is
// empty.
func (j *joint) box(r *spec.Relational) (lo, hi []float64, ok bool) {
	lo = append(append([]float64(nil), r.BoxF.Lo...), r.BoxG.Lo...)
	hi = append(append([]float64(nil), r.BoxF.Hi...), r.BoxG.Hi...)
	for i, li := range j.linked {
		if li < 0 {
			continue
		}
		l := r.Links[li]
		lo[j.nf+i] = max(l.Lo, outward.SubDown(r.BoxG.Lo[i], r.BoxF.Hi[i]))
		hi[j.nf+i] = min(l.Hi, outward.SubUp(r.BoxG.Hi[i], r.BoxF.Lo[i]))
	}
	return lo, hi, j.tighten(r, lo, hi)
}

// tighten narrows the node [lo, hi] of the joint box to its coordinates'
// projections of {u_i in U, w_i in D, u_i + w_i in BoxG_i} for every
// linked i (rounded outwards, so it keeps every pair of the set) and
// reports whether the node may still hold a pair (false: certainly
// none).
func (j *joint) tighten(r *spec.Relational, lo, hi []float64) bool {
	for i, li := range j.linked {
		if li < 0 {
			continue
		}
		u, w := i, j.nf+i
		gl, gh := r.BoxG.Lo[i], r.BoxG.Hi[i]
		lo[u] = max(lo[u], outward.SubDown(gl, hi[w]))
		hi[u] = min(hi[u], outward.SubUp(gh, lo[w]))
		lo[w] = max(lo[w], outward.SubDown(gl, hi[u]))
		hi[w] = min(hi[w], outward.SubUp(gh, lo[u]))
		if lo[u] > hi[u] || lo[w] > hi[w] {
			return false
		}
	}
	for i := range lo {
		if lo[i] > hi[i] {
			return false
		}
	}
	return true
}

// inputs returns the pair (x_f, x_g) of the joint input z, with x_g
// clamped into BoxG and, per link, into x_f + [Lo, Hi] where float64 can
// tell; ExactInputs says whether the pair is in the set.
func (j *joint) inputs(r *spec.Relational, z []float64) (xf, xg []float64) {
	xf = append([]float64(nil), z[:j.nf]...)
	if r.Single() {
		return xf, nil
	}
	xg = make([]float64, j.ng)
	for i := range xg {
		v := z[j.nf+i]
		if li := j.linked[i]; li >= 0 {
			l := r.Links[li]
			if l.Tied() {
				xg[i] = xf[i]
				continue
			}
			v = min(max(xf[i]+v, xf[i]+l.Lo), xf[i]+l.Hi)
		}
		xg[i] = min(max(v, r.BoxG.Lo[i]), r.BoxG.Hi[i])
	}
	return xf, xg
}
