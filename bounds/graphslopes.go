package bounds

import (
	"math"

	"github.com/nnbound/nnbound/nn"
)

// Optimised lines on the output's rows of a graph (alpha-CROWN).
//
// Some relaxations of a graph leave a choice of lines, each sound: the
// lower line a x of a ReLU or leaky ReLU straddling its kink, any slope a
// in the range of its slopes (slopes.go); and, for the difference d' of a
// pair of activations, any of the planes diffPlanes chooses from
// (diffCandidates), which it picks at the centre of the box. Each row of
// the output may make its own choice. With every line fixed, the bound of
// a row is
//
//	B = Lam_t . yhat_t,
//
// where yhat is the graph evaluated forward on linear forms only: the
// input at the corner the row's input coefficients choose, each relaxed
// entry replaced by the line its coefficient's sign chooses (the upper
// one where it is not negative). With Lam_(k, i), the coefficient of the
// row on entry i of node k's output when back-substitution reaches it,
// dB/da = Lam_(k, i) yhat_(in, i) for a ReLU's slope, and a pair's plane
// P changes B by Lam_(k, i) (P'(yhat) - P(yhat)) to first order. So each
// step moves the slopes by projected Adam (adamStep) and picks for each
// pair entry the plane best at yhat, then back-substitutes again; a fixed
// number of steps. Every step's bound is a rigorous back-substitution
// (graphback.go) with lines sound whatever the choice, and each row keeps
// the lowest, so the result is never looser than the pass's bound.

// nodeSlopes holds the free lines of one relaxed node for the rows of a
// batch. For an activation, free marks the entries whose lower line's
// slope may be anything in [lo[i], hi[i]], and sl[r*n+i] is row r's
// slope. For a pair node, planes[side][3i:3i+count[i]] are entry i's
// candidate planes below (side 0) and above (1), and pick[side][r*n+i]
// is the one row r uses.
type nodeSlopes struct {
	n int
	// an activation's lower lines
	free     []bool
	lo, hi   []float64
	sl, m, v []float64 // the slopes and Adam's moments
	planes   [2][]plane
	count    []uint8
	pick     [2][]uint8
	pair     bool
}

// graphSlopes is the state of optimiseRows for one batch of rows.
type graphSlopes struct {
	rows  int
	nodes []*nodeSlopes // per node, nil: no free line
	// lam holds per value the coefficients of every row on it recorded
	// by the last back-substitution: on value 0 and on the output of
	// every relaxed node (nil: not reached).
	lam [][]float64
}

// newGraphSlopes returns the free lines of the relaxed nodes of b below
// value t for rows rows, each slope where the pass's own line has it.
func newGraphSlopes(b *graphBack, t, rows int) *graphSlopes {
	o := &graphSlopes{rows: rows, nodes: make([]*nodeSlopes, len(b.g.Nodes)), lam: make([][]float64, len(b.g.Nodes)+1)}
	for k := range t {
		node, rel := b.g.Nodes[k], b.rel[k]
		if rel == nil || rel.lowAt != nil {
			continue
		}
		n := len(rel.low)
		ns := &nodeSlopes{n: n}
		switch op := node.Op.(type) {
		case nn.Act:
			fl := newFreeLines(op.Act, b.vals[node.Inputs[0]])
			if fl.count == 0 {
				continue
			}
			ns.free, ns.lo, ns.hi = make([]bool, n), fl.lo, fl.hi
			ns.sl, ns.m, ns.v = make([]float64, rows*n), make([]float64, rows*n), make([]float64, rows*n)
			for i, sd := range fl.side {
				if sd >= 0 {
					continue
				}
				ns.free[i] = true // the lower line is free: its slope is rel.low[i].A
				a := min(max(rel.low[i].A, fl.lo[i]), fl.hi[i])
				for r := range rows {
					ns.sl[r*n+i] = a
				}
			}
		case pairAct:
			ins := make([][]Interval, len(node.Inputs))
			for j, u := range node.Inputs {
				ins[j] = b.vals[u]
			}
			z, d, y, post := ins[0], ins[1], sums(ins), b.vals[k+1]
			ns.pair, ns.count = true, make([]uint8, n)
			for side := range 2 {
				ns.planes[side], ns.pick[side] = make([]plane, 3*n), make([]uint8, rows*n)
			}
			for i := range n {
				// As pairRelax, but every candidate kept.
				l1, u1 := relax(op.act1, z[i].Lo, z[i].Hi)
				l2, u2 := relax(op.act2, y[i].Lo, y[i].Hi)
				lows, ups, c := diffCandidates(op.act1, op.act2, z[i], y[i], d[i], post[i], l1, u1, l2, u2)
				copy(ns.planes[0][3*i:], lows[:c])
				copy(ns.planes[1][3*i:], ups[:c])
				ns.count[i] = uint8(c)
				ca, cd := z[i].Lo/2+z[i].Hi/2, d[i].Lo/2+d[i].Hi/2
				lo, up := bestPlane(lows[:c], ca, cd, false), bestPlane(ups[:c], ca, cd, true)
				for r := range rows {
					ns.pick[0][r*n+i], ns.pick[1][r*n+i] = uint8(lo), uint8(up)
				}
			}
		default:
			continue
		}
		o.nodes[k] = ns
	}
	return o
}

// line returns row r's line of entry i on the side a coefficient l
// chooses (the upper one where l >= 0) as A (on the first input), C and
// B (on the second), if it is free.
func (ns *nodeSlopes) line(r, i int, l float64) (a, c, b float64, ok bool) {
	switch {
	case ns == nil:
		return 0, 0, 0, false
	case ns.pair:
		side := 0
		if l >= 0 {
			side = 1
		}
		p := ns.planes[side][3*i+int(ns.pick[side][r*ns.n+i])]
		return p.A, p.C, p.B, true
	case l < 0 && ns.free[i]:
		return ns.sl[r*ns.n+i], 0, 0, true
	}
	return 0, 0, 0, false
}

// record keeps the coefficients lam on value v (rows x size) for the
// gradient.
func (o *graphSlopes) record(v int, lam []float64) {
	if o.lam[v] == nil {
		o.lam[v] = make([]float64, len(lam))
	}
	copy(o.lam[v], lam)
}

// forward sets yh[v] to value v of the graph evaluated on linear forms
// for row r (see the comment at the top of the file), for every value up
// to t.
func (o *graphSlopes) forward(b *graphBack, t, r int, yh [][]float64) {
	g := b.g
	x0, lam0 := b.vals[0], o.lam[0]
	n0 := len(x0)
	for j, x := range x0 {
		yh[0][j] = x.Hi
		if lam0 != nil && lam0[r*n0+j] < 0 {
			yh[0][j] = x.Lo
		}
	}
	for k := range t {
		node, rel, out := g.Nodes[k], b.rel[k], yh[k+1]
		ins := make([][]float64, len(node.Inputs))
		for i, u := range node.Inputs {
			ins[i] = yh[u]
		}
		if rel == nil {
			node.Op.Eval(out, ins)
			continue
		}
		n, lam := len(out), o.lam[k+1]
		for i := range out {
			l := 0.0
			if lam != nil {
				l = lam[r*n+i]
			}
			ln, j, lb := rel.up[i], at(rel.upAt, i), rel.upB
			if l < 0 {
				ln, j, lb = rel.low[i], at(rel.lowAt, i), rel.lowB
			}
			a, c, bb := ln.A, ln.C, 0.0
			if lb != nil {
				bb = lb[i]
			}
			if fa, fc, fb, ok := o.nodes[k].line(r, i, l); ok {
				a, c, bb = fa, fc, fb
			}
			y := a*ins[0][j] + c
			if bb != 0 {
				y += bb * ins[1][i]
			}
			out[i] = y
		}
	}
}

// step moves every free slope of row r one Adam step down the gradient
// of its bound (forward's values yh) of size rate (d1 and d2 as adamStep), and
// picks each pair entry's planes best at yh.
func (o *graphSlopes) step(b *graphBack, r int, yh [][]float64, rate, d1, d2 float64) {
	for k, ns := range o.nodes {
		lam := o.lam[k+1]
		if ns == nil || lam == nil {
			continue
		}
		in, n := b.g.Nodes[k].Inputs, ns.n
		if ns.pair {
			z, d := yh[in[0]], yh[in[1]]
			for i, c := range ns.count {
				ps := ns.planes[0][3*i : 3*i+int(c)]
				ns.pick[0][r*n+i] = uint8(bestPlane(ps, z[i], d[i], false))
				ps = ns.planes[1][3*i : 3*i+int(c)]
				ns.pick[1][r*n+i] = uint8(bestPlane(ps, z[i], d[i], true))
			}
			continue
		}
		for i, f := range ns.free {
			j := r*n + i
			if l := lam[j]; f && l < 0 { // only the line in use has a gradient
				ns.sl[j] = adamStep(ns.sl[j], l*yh[in[0]][i], &ns.m[j], &ns.v[j], rate, d1, d2, ns.lo[i], ns.hi[i])
			}
		}
	}
}

// Adam's decay rates and guard, shared with the chain's optimiser
// (optimise.go).
const adamBeta1, adamBeta2, adamEps = 0.9, 0.999, 1e-12

// adamStep returns the slope a moved by one projected Adam step of size
// rate on the gradient g, onto [lo, hi], updating the moments m and v; d1
// and d2 are the bias corrections 1 - beta^t of the step t (from 1).
func adamStep(a, g float64, m, v *float64, rate, d1, d2, lo, hi float64) float64 {
	*m = adamBeta1**m + (1-adamBeta1)*g
	*v = adamBeta2**v + (1-adamBeta2)*g*g
	mh, vh := *m/d1, *v/d2
	return min(max(a-rate*mh/(math.Sqrt(vh)+adamEps), lo), hi)
}

// optimiseRows lowers the upper bounds up of the rows of value t
// (back-substituted to the input) by set.Iterations steps of optimised
// slopes, batches of batch rows on workers goroutines. The result does
// not depend on the number of workers.
func (b *graphBack) optimiseRows(t int, rows []backRow, up []float64, set OptimiseSettings, batch, workers int) {
	b.batches(len(rows), batch, workers, func(w *backWork, lo, hi int) {
		w.optimise(t, rows[lo:hi], up[lo:hi], set)
	})
}

// optimise is optimiseRows on one batch.
func (w *backWork) optimise(t int, rows []backRow, best []float64, set OptimiseSettings) {
	b := w.b
	o := newGraphSlopes(b, t, len(rows))
	yh := make([][]float64, t+1)
	for v := range yh {
		yh[v] = make([]float64, b.g.Size(v))
	}
	cur := make([]float64, len(rows))
	w.opt = o
	defer func() { w.opt = nil }()
	p1, p2 := 1.0, 1.0
	for it := 0; ; it++ {
		if b.ctx != nil && b.ctx.Err() != nil {
			return
		}
		for _, l := range o.lam {
			clear(l) // a value the rows do not reach keeps no coefficients
		}
		w.batch(t, rows, 0, cur)
		for r, c := range cur {
			if c < best[r] { // not NaN
				best[r] = c
			}
		}
		if it == set.Iterations {
			return
		}
		p1 *= adamBeta1
		p2 *= adamBeta2
		rate := set.Step * math.Pow(0.95, float64(it))
		for r := range rows {
			o.forward(b, t, r, yh)
			o.step(b, r, yh, rate, 1-p1, 1-p2)
		}
	}
}
