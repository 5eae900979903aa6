package bounds

import (
	"context"
	"math"
	"runtime"
	"sync"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// Back-substitution through a graph (CROWN over a DAG).
//
// A batch of R rows bounds targets sign_r t_{i_r} of one value t from above
// by linear forms in the values below it,
//
//	sign_r t_{i_r} <= sum_v Lam_v[r] . x_v + C[r] + E[r],
//
// where Lam_v, the coefficients on value v, live in a buffer of R x size(v)
// floats, C is a float64 constant and E >= 0 bounds the rounding error of
// every step so far, so the inequality holds for the exact reals. The
// nodes below t are visited in reverse topological order; when node k is
// reached every reader of its value has been visited, so Lam_{k+1} is
// complete and is replaced by coefficients on the node's inputs:
//
//   - Affine y = M x + B: Lam_x += M^T Lam_y (ApplyTransposed, row by
//     row), C += Lam_y . B;
//   - Add, Concat: Lam_y routed to the inputs (negated for a Sub);
//   - Act, Quantise, MaxPool: y_i replaced by its upper line where
//     Lam_y[r,i] >= 0, its lower line where it is negative (graphRelax);
//
// or, at a stopping value (a window of back-substitution), and at the
// input, replaced by its largest value over the value's bounds
// (concretised). A value read by two nodes receives the sum of their
// coefficients. Memory grows with R times the sizes of the values whose
// coefficients are pending, never with their square.
//
// Rounding. With |x_j| <= mag_j on each value: M^T Lam computed in any
// order of at most n = M.Out() terms per entry is within
// 2 (n+2) u |Lam| |M| of the exact product (Higham, eq. 3.13), plus
// (n+2) 2^-1074 per unit of mag for underflow; a product Lam_i A of a
// relaxation line and the sums of at most fanIn of them at one input are
// within 2 (fanIn+1) u |Lam_i A| + fanIn 2^-1074; the sum of two buffers
// at a shared input within u |sum|; every dot product into C within
// outward.DotErr. Each error is weighted by mag and added to E, rounded up.

// graphBack is what back-substitution reads of a graph being bounded:
// the bounds of its values (final below the target), the relaxations of
// its nonlinear nodes, and |M| mag of its affine nodes.
type graphBack struct {
	ctx    context.Context // a batch begun after ctx is done leaves its rows at +Inf
	g      *nn.Graph
	vals   [][]Interval
	mags   [][]float64
	magSum []float64
	rel    []*graphRelax // per node; nil for a linear node
	abs    []nn.Linear   // |M| per affine node
	absMag [][]float64   // |M| mag of the node's input, per affine node
	convT  []*convT      // per convolution node (one group), its kernel for the batched product
	level  []int         // per value: the most nonlinear nodes on a path from the input
	// refined holds, per value (nil: none), the sides of each entry
	// back-substituted to the input (refinedUp, refinedLow).
	refined [][]uint8
	// noBands makes every window whole (for the tests: the bounds
	// must be the same to the bit).
	noBands bool
	// allRows turns reluRowsNeeded off (for the tests).
	allRows bool
	// reference takes the plain loops (GraphOptions.reference).
	reference bool
	// cut marks values whose coefficients are concretised rather than
	// substituted in the rows of every value but the output (nil: none).
	cut []bool
	// idle holds the workers of finished upperRows calls, whose spare
	// buffers the next call reuses.
	mu   sync.Mutex
	idle []*backWork
}

// worker returns an idle worker, or a new one.
func (b *graphBack) worker() *backWork {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n := len(b.idle); n > 0 {
		w := b.idle[n-1]
		b.idle = b.idle[:n-1]
		return w
	}
	return &backWork{b: b, free: map[int][][]float64{}}
}

// release makes w idle.
func (b *graphBack) release(w *backWork) {
	b.mu.Lock()
	b.idle = append(b.idle, w)
	b.mu.Unlock()
}

// setBounds fixes the bounds of value v and their magnitudes (for the
// rounding margins of the steps through v).
func (b *graphBack) setBounds(v int, x []Interval) {
	b.vals[v] = x
	b.mags[v] = mags(x)
	s := 0.0
	for _, m := range b.mags[v] {
		s += m
	}
	b.magSum[v] = outward.MulUp(s, sumFactor(len(x)))
}

// prepare computes |M| mag for affine node k (its input's bounds final)
// and, for a convolution, its kernel for the batched product.
func (b *graphBack) prepare(k int) {
	a, ok := b.g.Nodes[k].Op.(*nn.Affine)
	if !ok {
		return
	}
	t := make([]float64, a.M.Out())
	b.abs[k].Apply(t, b.mags[b.g.Nodes[k].Inputs[0]])
	b.absMag[k] = t
	if c, ok := a.M.(*nn.Conv2D); ok {
		b.convT[k] = newConvT(c)
	}
}

// backRow is one target row: sign times value t's entry i.
type backRow struct {
	i    int
	sign float64
}

// upperRows returns upper bounds of sign_r t_{i_r} for every row, in
// batches of batch rows on workers goroutines. Back-substitution stops at
// the outputs of nonlinear nodes of level at most stop (0: never). The
// result does not depend on the number of workers.
func (b *graphBack) upperRows(t int, rows []backRow, stop, batch, workers int) []float64 {
	out := make([]float64, len(rows))
	b.batches(len(rows), batch, workers, func(w *backWork, lo, hi int) {
		if b.ctx != nil && b.ctx.Err() != nil {
			for i := lo; i < hi; i++ {
				out[i] = math.Inf(1)
			}
			return
		}
		w.batch(t, rows[lo:hi], stop, out[lo:hi])
	})
	return out
}

// batches calls do on the batches [lo, hi) of batch rows of n rows, on
// workers goroutines (0: GOMAXPROCS), each call with its goroutine's
// worker.
func (b *graphBack) batches(n, batch, workers int, do func(w *backWork, lo, hi int)) {
	nb := (n + batch - 1) / batch
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan int, nb)
	for s := range nb {
		next <- s
	}
	close(next)
	var wg sync.WaitGroup
	for range min(workers, nb) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := b.worker()
			defer b.release(w)
			for s := range next {
				do(w, s*batch, min((s+1)*batch, n))
			}
		}()
	}
	wg.Wait()
}

// backWork is one worker's state: the pending coefficient buffers and
// spare ones by size.
type backWork struct {
	b       *graphBack
	buf     [][]float64
	band    []window // per value, the window of its planes where its coefficients may be non-zero
	c, e    []float64
	rows    int
	free    map[int][][]float64
	conv    convScratch // scratch of the batched convolution
	spanBuf [][2]int    // the spans of a batch (spans)
	// opt, if not nil, holds the rows' own lines and records their
	// coefficients (graphslopes.go).
	opt *graphSlopes
}

// get returns a zeroed buffer of n floats.
func (w *backWork) get(n int) []float64 {
	if l := w.free[n]; len(l) > 0 {
		s := l[len(l)-1]
		w.free[n] = l[:len(l)-1]
		return s // put left it zero
	}
	return make([]float64, n)
}

// put returns a buffer for reuse, zero outside the spans sp of each row.
func (w *backWork) put(s []float64, sp [][2]int) {
	n := len(s) / w.rows
	for r := range w.rows {
		for _, p := range sp {
			clear(s[r*n+p[0] : r*n+p[1]])
		}
	}
	w.free[len(s)] = append(w.free[len(s)], s)
}

// batch sets dst to the upper bounds of the rows of one batch.
func (w *backWork) batch(t int, rows []backRow, stop int, dst []float64) {
	b, g := w.b, w.b.g
	r := len(rows)
	w.rows, w.c, w.e = r, make([]float64, r), make([]float64, r)
	w.spanBuf = w.spanBuf[:0]
	w.buf = make([][]float64, len(g.Nodes)+1)
	w.band = make([]window, len(g.Nodes)+1)
	n := g.Size(t)
	lam := w.get(r * n)
	w.band[t] = window{math.MaxInt, 0, math.MaxInt, 0}
	for k, row := range rows {
		lam[k*n+row.i] = row.sign
		w.band[t] = w.band[t].union(entryWindow(g.Shape(t), row.i))
	}
	if b.noBands {
		w.band[t] = fullBand(g.Shape(t))
	}
	w.buf[t] = lam
	for k := t - 1; k >= 0; k-- {
		v := k + 1
		lam := w.buf[v]
		if lam == nil {
			continue
		}
		w.buf[v] = nil
		sp := w.spans(v, w.band[v])
		if zeroRows(lam, w.rows, sp) { // cancelled (graphchains.go): nothing to pass on
			w.put(lam, sp)
			continue
		}
		kept := false
		if (b.rel[k] != nil && b.level[v] <= stop && nonlinear(g.Nodes[k].Op)) || (b.cut != nil && b.cut[v] && t != len(g.Nodes)) {
			w.concretise(lam, v, sp)
		} else {
			kept = w.step(k, lam, sp)
		}
		if !kept {
			w.put(lam, sp)
		}
	}
	if w.buf[0] != nil {
		if w.opt != nil {
			w.opt.record(0, w.buf[0])
		}
		sp := w.spans(0, w.band[0])
		w.concretise(w.buf[0], 0, sp)
		w.put(w.buf[0], sp)
	}
	for k := range dst {
		dst[k] = outward.UpBy(w.c[k], w.e[k])
	}
}

// step replaces the coefficients lam on node k's output by coefficients
// on its inputs, and reports whether it kept lam (passed it on).
func (w *backWork) step(k int, lam []float64, sp [][2]int) bool {
	node := w.b.g.Nodes[k]
	switch op := node.Op.(type) {
	case *nn.Affine:
		w.affine(k, op, lam, sp)
	case nn.Add:
		w.add(k, lam, sp, op.Negate)
		return true
	case chainDiff:
		w.add(k, lam, sp, true)
		return true
	case nn.Concat:
		n, off := len(lam)/w.rows, 0
		for _, v := range node.Inputs {
			m := w.b.g.Size(v)
			dst := w.get(w.rows * m)
			for r := range w.rows {
				copy(dst[r*m:(r+1)*m], lam[r*n+off:r*n+off+m])
			}
			w.merge(v, dst, w.band[k+1].to(w.b.g.Shape(k+1), w.b.g.Shape(v)))
			off += m
		}
	default:
		return w.relax(k, lam, sp)
	}
	return false
}

// add steps through node k, the sum of its first two inputs (their
// difference with negate), passing lam on to the first.
func (w *backWork) add(k int, lam []float64, sp [][2]int, negate bool) {
	in := w.b.g.Nodes[k].Inputs
	out := w.b.g.Shape(k + 1)
	band1 := w.band[k+1].to(out, w.b.g.Shape(in[1]))
	sign, n := 1.0, len(lam)/w.rows
	if negate {
		sign = -1
	}
	if w.buf[in[1]] != nil {
		w.addTo(in[1], lam, sign, band1)
	} else {
		c := w.get(len(lam))
		for r := range w.rows {
			for _, p := range sp {
				lo, hi := r*n+p[0], r*n+p[1]
				if !negate {
					copy(c[lo:hi], lam[lo:hi])
					continue
				}
				for i := lo; i < hi; i++ {
					c[i] = -lam[i]
				}
			}
		}
		w.merge(in[1], c, band1)
	}
	w.merge(in[0], lam, w.band[k+1].to(out, w.b.g.Shape(in[0])))
}

// affine steps through y = M x + B (node k).
func (w *backWork) affine(k int, op *nn.Affine, lam []float64, sp [][2]int) {
	b := w.b
	v := b.g.Nodes[k].Inputs[0]
	n, m := op.M.Out(), op.M.In()
	dst := w.get(w.rows * m)
	t := b.absMag[k]
	terms := n
	if conv, ok := op.M.(*nn.Conv2D); ok {
		terms += conv.KH * conv.KW // the batched product sums in another order (graphconv.go)
	}
	relErr := 2 * float64(terms+2) * outward.Unit * sumFactor(terms)
	tiny := outward.MulUp(float64(terms+2)*outward.Tiny, b.magSum[v])
	band := w.band[k+1]
	conv, _ := op.M.(*nn.Conv2D)
	inBand := fullBand(b.g.Shape(v)) // a dense map or a selection reaches any entry
	switch mp := op.M.(type) {
	case *nn.Conv2D:
		inBand = convWindow(mp, band)
	case *nn.AvgPool2D:
		inBand = poolRows(mp.Pool2D, band)
	case *nn.Scale:
		inBand = band.to(b.g.Shape(k+1), b.g.Shape(v))
	}
	if ct := b.convT[k]; ct != nil {
		ct.addTransposed(dst, lam, w.rows, band, &w.conv)
	}
	for r := range w.rows {
		row := lam[r*n : (r+1)*n]
		switch {
		case b.convT[k] != nil:
		case conv != nil:
			conv.AddTransposedRows(dst[r*m:(r+1)*m], row, band.lo, band.hi)
		default:
			op.M.ApplyTransposed(dst[r*m:(r+1)*m], row)
		}
		switch {
		case b.reference || (r%2 == 0 && r+1 == w.rows):
			w.affineSums(r, r, lam, op.B, t, sp, relErr, tiny)
		case r%2 == 1: // with the row before
			w.affineSums(r-1, r, lam, op.B, t, sp, relErr, tiny)
		}
	}
	w.merge(v, dst, inBand)
}

// affineSums adds to the constants of rows r0 and r1 (one row when they
// are equal) their coefficients lam times the bias B (nil: none), with the
// rounding errors of those products and of the affine step. The two rows'
// sums are interleaved, so that the processor overlaps them; each adds the
// same terms in the same order as one row at a time.
func (w *backWork) affineSums(r0, r1 int, lam, bias, t []float64, sp [][2]int, relErr, tiny float64) {
	n := len(lam) / w.rows
	row0, row1 := lam[r0*n:(r0+1)*n], lam[r1*n:(r1+1)*n]
	s0, abs0, prop0 := w.c[r0], math.Abs(w.c[r0]), 0.0
	s1, abs1, prop1 := w.c[r1], math.Abs(w.c[r1]), 0.0
	for _, p := range sp {
		for i := p[0]; i < p[1]; i++ {
			if l := row0[i]; l != 0 {
				if bias != nil {
					p := l * bias[i]
					s0 += p
					abs0 += math.Abs(p)
				}
				prop0 += math.Abs(l) * t[i]
			}
			if l := row1[i]; l != 0 && r1 != r0 {
				if bias != nil {
					p := l * bias[i]
					s1 += p
					abs1 += math.Abs(p)
				}
				prop1 += math.Abs(l) * t[i]
			}
		}
	}
	w.c[r0] = s0
	err := outward.AddUp(outward.DotErr(abs0, n), outward.AddUp(relErr*prop0*sumFactor(n), tiny))
	w.e[r0] = outward.AddUp(w.e[r0], err)
	if r1 != r0 {
		w.c[r1] = s1
		err := outward.AddUp(outward.DotErr(abs1, n), outward.AddUp(relErr*prop1*sumFactor(n), tiny))
		w.e[r1] = outward.AddUp(w.e[r1], err)
	}
}

// concretise replaces the coefficients lam on value v, zero outside the
// spans sp of each row, by their largest value over v's bounds.
func (w *backWork) concretise(lam []float64, v int, sp [][2]int) {
	x := w.b.vals[v]
	n := len(x)
	for r := range w.rows {
		row := lam[r*n : (r+1)*n]
		s, abs := w.c[r], math.Abs(w.c[r])
		for _, p := range sp {
			for j := p[0]; j < p[1]; j++ {
				l := row[j]
				if l == 0 {
					continue
				}
				t := max(l*x[j].Lo, l*x[j].Hi)
				s += t
				abs += math.Abs(t)
			}
		}
		w.c[r] = s
		w.e[r] = outward.AddUp(w.e[r], outward.DotErr(abs, n))
	}
}

// zeroRows reports whether the coefficients lam of rows rows are zero on
// the spans sp of each row.
func zeroRows(lam []float64, rows int, sp [][2]int) bool {
	n := len(lam) / rows
	for r := range rows {
		for _, p := range sp {
			for _, l := range lam[r*n+p[0] : r*n+p[1]] {
				if l != 0 {
					return false
				}
			}
		}
	}
	return true
}
