package bounds

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
)

// The levels of the slope optimiser's chains (optimise.go): compacted once
// per chain, and laid out as single lines where they are.

// levelCache holds the compacted levels of one back-substitution chain
// (a network's layers, or the joint levels of a pair), each computed
// once: a level's relaxation does not change once the layers above it
// are being bounded. Safe for concurrent use.
type levelCache struct {
	mu     sync.Mutex
	levels []chainLevel
	fcol   [][]int
}

// compact returns compactLevel(lv) for level j of the chain, from the
// cache if it is there (c nil: computed every time).
func (c *levelCache) compact(j int, lv chainLevel) (chainLevel, []int) {
	if c == nil {
		return compactLevel(lv)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.fcol) <= j {
		c.levels, c.fcol = append(c.levels, chainLevel{}), append(c.fcol, nil)
	}
	if c.fcol[j] == nil {
		c.levels[j], c.fcol[j] = compactLevel(lv)
	}
	return c.levels[j], c.fcol[j]
}

// compactLevel returns lv without the pre-variables no bound depends on
// (those of ReLUs that are always off, say), and, per variable, the
// pre-variable of its free line in the result (-1 for none).
func compactLevel(lv chainLevel) (chainLevel, []int) {
	n := len(lv.rel.Lower)
	live := make([]bool, lv.rel.cols)
	for i := range n {
		for _, bd := range [2]affineBound{lv.rel.Lower[i], lv.rel.Upper[i]} {
			for _, t := range bd.terms {
				live[t.col] = live[t.col] || t.coef != 0
			}
		}
		if lv.free != nil && lv.free.side[i] != 0 {
			live[i] = true
		}
	}
	pos := make([]int, len(live))
	var rows []int
	for p, ok := range live {
		pos[p] = -1
		if ok {
			pos[p] = len(rows)
			rows = append(rows, p)
		}
	}
	out := chainLevel{free: lv.free, b: make([]float64, len(rows)),
		rel: stepRelax{Lower: make([]affineBound, n), Upper: make([]affineBound, n), cols: len(rows)}}
	remap := func(bd affineBound) affineBound {
		r := affineBound{C: bd.C}
		for _, t := range bd.terms {
			if t.coef != 0 {
				r.terms = append(r.terms, term{pos[t.col], t.coef})
			}
		}
		return r
	}
	fcol := make([]int, n)
	for i := range n {
		out.rel.Lower[i], out.rel.Upper[i] = remap(lv.rel.Lower[i]), remap(lv.rel.Upper[i])
		fcol[i] = -1
		if lv.free != nil && lv.free.side[i] != 0 {
			fcol[i] = pos[i]
		}
	}
	w := blas64.General{Rows: len(rows), Cols: lv.w.Cols, Stride: lv.w.Cols, Data: make([]float64, max(1, len(rows))*lv.w.Cols)}
	for q, p := range rows {
		copy(w.Data[q*w.Cols:(q+1)*w.Cols], lv.w.Data[p*lv.w.Stride:p*lv.w.Stride+lv.w.Cols])
		out.b[q] = lv.b[p]
	}
	out.w, out.pack = w, &packCache{}
	out.lines = newLineLevel(out, fcol)
	return out, fcol
}

// Levels of single lines, the optimiser's common case.
//
// On a network's own layers (lineRelax, compacted) every bound of a
// variable is one line in its own pre-variable, and its free line (if any)
// is in the same one. slopeOpt then gives each row its lines as two dense
// arrays, the row's slope in place of the level's line wherever that side
// is free, and its inner loops pick a line by the sign of the coefficient
// without a branch (the sign is random, so a branch is mispredicted half
// the time). A line with no term has coefficient 0, a slope offset 0, and
// a zero coefficient is no longer skipped: these add zeros to finite sums,
// which leaves them as they are but for the sign of a zero result, and such
// a zero only reaches Adam's moments, where +0 and -0 act alike. So the
// slopes found, and the bounds, are those of the general loops to the bit.

// lineLevel is a level whose variable i is bounded by the lines
//
//	coef[2i] p_col[i] + cst[2i]  (upper),   coef[2i+1] p_col[i] + cst[2i+1]  (lower)
//
// of one pre-variable p_col[i].
type lineLevel struct {
	col       []int
	coef, cst []float64
}

// newLineLevel returns the lines of lv (compacted, fcol[i] the column of
// variable i's free line or -1), or nil when a bound has more than one
// term or terms in different columns, or lv has no pre-variables.
func newLineLevel(lv chainLevel, fcol []int) *lineLevel {
	n := len(lv.rel.Lower)
	if lv.rel.cols == 0 {
		return nil
	}
	ll := &lineLevel{col: make([]int, n), coef: make([]float64, 2*n), cst: make([]float64, 2*n)}
	for i := range n {
		col := fcol[i]
		for k, bd := range [2]affineBound{lv.rel.Upper[i], lv.rel.Lower[i]} {
			ll.cst[2*i+k] = bd.C
			if len(bd.terms) > 1 || len(bd.terms) == 1 && col >= 0 && bd.terms[0].col != col {
				return nil
			}
			if len(bd.terms) == 1 {
				col = bd.terms[0].col
				ll.coef[2*i+k] = bd.terms[0].coef
			}
		}
		ll.col[i] = max(col, 0) // a variable with no term adds zeros to column 0
	}
	return ll
}

// rowLines sets the lines of row r of level j (whose lineLevel is ll) to
// ll's, with the row's slope a (offset 0) on each free side where a is
// not NaN, and returns them. The slopes need no clamping: run keeps them
// in their ranges. The slices are o's work space, which holds ll's lines
// but on the free sides; they stay valid while the slopes do not change
// (storedLines).
func (o *slopeOpt) rowLines(j, r int, ll *lineLevel) (coef, cst []float64) {
	coef, cst = o.storedLines(j, r)
	sl := o.slopes[j]
	if sl == nil {
		return coef, cst
	}
	s, side := sl.s[r*sl.n:(r+1)*sl.n], sl.free.side
	for _, i := range o.freeVars[j] {
		k := 2 * i
		if side[i] < 0 {
			k++
		}
		if a := s[i]; a == a {
			coef[k], cst[k] = a, 0
		} else {
			coef[k], cst[k] = ll.coef[k], ll.cst[k]
		}
	}
	return coef, cst
}

// storedLines returns the lines of row r of level j as the last rowLines
// set them.
func (o *slopeOpt) storedLines(j, r int) (coef, cst []float64) {
	n2 := len(o.levels[j].lines.coef)
	return o.rowCoef[j][r*n2 : (r+1)*n2], o.rowCst[j][r*n2 : (r+1)*n2]
}

// forwardLines is the part of forward on level j (a lineLevel) for row
// r: it adds the row's lines times the coefficients z (of the level's
// variables) to xr (on the pre-variables) and returns the sum of their
// offsets times z.
func (o *slopeOpt) forwardLines(j, r int, ll *lineLevel, z, xr []float64) float64 {
	coef, cst := o.rowLines(j, r, ll)
	col := ll.col[:len(z)]
	cr := 0.0
	for i, v := range z {
		neg := 0 // so written, the choice compiles to a SETcc, not a branch
		if v < 0 {
			neg = 1
		}
		k := 2*i + neg
		xr[col[i]] += v * coef[k]
		cr += v * cst[k]
	}
	return cr
}

// backwardLines is the part of backward on level j (a lineLevel) for row
// r: the gradient gz in the coefficients z of the level's variables (none
// if gz is nil), and gr in the row's slopes, from the gradient q in the
// pre-variables. It
// takes the row's lines as forward left them: the slopes have not
// changed since.
func (o *slopeOpt) backwardLines(j, r int, ll *lineLevel, z, q, gz, gr []float64) {
	coef, cst := o.storedLines(j, r)
	col := ll.col[:len(z)]
	if gz != nil {
		for i, v := range z {
			neg := 0
			if v < 0 {
				neg = 1
			}
			k := 2*i + neg
			gz[i] = cst[k] + q[col[i]]*coef[k]
		}
	}
	sl := o.slopes[j]
	if sl == nil {
		return
	}
	s, side := sl.s[r*sl.n:(r+1)*sl.n], sl.free.side
	for _, i := range o.freeVars[j] {
		// The row's slope is used where v's sign picks its side and it is
		// not NaN; elsewhere gr[i] stays +0 (backward clears gr). The sign
		// is random, so the choice is a mask rather than a branch.
		v := z[i]
		var up, upper, num uint64
		if v >= 0 {
			up = 1
		}
		if side[i] > 0 {
			upper = 1
		}
		if a := s[i]; a == a {
			num = 1
		}
		used := ^(up ^ upper) & num & 1
		gr[i] = math.Float64frombits(math.Float64bits(q[col[i]]*v) & -used)
	}
}
