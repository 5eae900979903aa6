package sdp

import "math"

// Reductions made before the solve (presolve) and undone on its result
// (restore). Each removes a part of the problem that has no interior, on
// which the interior-point iterates would stall against the boundary:
//
// Negligible entries. An entry (or a factor's contribution d u_a u_b)
// below negligibleTol times the largest entry of the problem is dropped:
// no product in double precision sees it. Generated problems carry such
// debris (entries of 1e-151 and 1e-302 beside entries of order one, where
// a neuron was scaled away), and left in place it hides the structure
// below.
//
// Zero rows of PSD blocks. When no F_i (i >= 1) touches row j of a PSD
// block (no entry above zeroRowTol times the largest entry of the problem:
// what is left where a quantised weight became zero is rounding noise of
// 1e-15) and F_0 holds at most a non-positive diagonal entry there, the
// slack X = sum F_i x_i - F_0 has row j fixed at -F_0[j,j] e_j: X has no
// interior if F_0[j,j] = 0, and an optimal Y has row j zero. The row is
// removed; Y gets a zero row back.
//
// Forced zeros of LP coordinates. A constraint i with no part in any PSD
// block, whose LP entries all have one sign, and with c_i = 0 reads
//
//	sum_k F_i[k] Y_k = 0,  Y_k >= 0,
//
// so every coordinate k it touches has Y_k = 0 at every dual feasible
// point: the dual has no interior, and x_i can grow without bound along a
// direction that changes nothing else. The coordinates and the constraint
// are removed; removing coordinates can leave further constraints of that
// kind, so the rule is applied until nothing changes. The removed Y_k are
// returned as 0, and x_i is chosen so that the removed slacks are
// non-negative (lift), which leaves c^T x unchanged. Together with the
// zero rows this is one step of facial reduction, restricted to what the
// sparsity and sign pattern shows.
//
// Empty constraints. A constraint with c_i = 0 and nothing left of F_i
// is removed; x_i is returned as 0.

// negligibleTol is the size, relative to the largest entry of the
// problem, below which an entry is dropped.
const negligibleTol = 1e-30

// zeroRowTol is the size, relative to the largest entry of the problem,
// below which every entry of a row must be for the row to count as zero:
// the relative size below which a constraint matrix counts as empty.
const zeroRowTol = emptyTol

// presolved is a reduced problem and what restore needs to map its
// solution back to the original.
type presolved struct {
	p, q   *Problem
	cons   []int    // cons[t]: the original variable (0-based) of q's variable t
	blocks []int    // blocks[b]: the original block of q's block b
	rows   [][]int  // rows[b][r]: the original index of row r of q's block b
	tol    float64  // entries of magnitude <= tol were dropped
	rowTol float64  // rows with no entry above rowTol were removed
	keep   [][]bool // keep[b][j]: row j of block b stays
	live   []bool   // live[i]: F_i keeps a part in the PSD blocks
	elim   []elimCon
	// coords holds, per removed LP coordinate, F_0 there and every
	// constraint's entry there.
	coords []removedCoord
	empty  []int // removed empty constraints
}

// elimCon is an eliminated constraint: the removed coordinates it touches
// (indices into presolved.coords) with its entries there, all of the sign
// pos.
type elimCon struct {
	con    int
	pos    bool
	coords []int
	val    []float64
}

// removedCoord is one LP coordinate taken out of the cone.
type removedCoord struct {
	block, index int
	f0           float64
	con          []int
	val          []float64
}

// isLP reports whether block b of p is an LP cone (diagonal, or order 1).
func isLP(p *Problem, b int) bool { return p.Blocks[b].Diagonal || p.Blocks[b].Size == 1 }

// problemScale returns the largest magnitude of the entries of the F_i
// and of the products d u_a u_b of their factors.
func problemScale(p *Problem) float64 {
	s := 0.0
	for _, mat := range p.F {
		for _, e := range mat {
			s = max(s, math.Abs(e.V))
		}
	}
	for _, fs := range p.Factors {
		for _, f := range fs {
			u := 0.0
			for _, v := range f.U.Value {
				u = max(u, math.Abs(v))
			}
			s = max(s, math.Abs(f.D)*u*u)
		}
	}
	return s
}

// presolve returns the reduced problem of a validated p, or nil when
// there is nothing to reduce.
func presolve(p *Problem) *presolved {
	scale := problemScale(p)
	if !(scale > 0) {
		return nil
	}
	ps := &presolved{p: p, tol: negligibleTol * scale, rowTol: zeroRowTol * scale}
	parts, wide := psdParts(p)
	keepRow := ps.usedRows(parts, wide)
	ps.keep = keepRow
	ps.live = ps.psdLive(parts, wide)
	removedLP := ps.eliminateLP()
	m := len(p.C)
	dropped := make([]bool, m)
	for _, ec := range ps.elim {
		dropped[ec.con] = true
	}
	live := ps.liveConstraints(removedLP)
	for i := range m {
		if !dropped[i] && !live[i] && p.C[i] == 0 {
			dropped[i] = true
			ps.empty = append(ps.empty, i)
		}
	}
	reduced := len(ps.elim) > 0 || len(ps.empty) > 0 || ps.droppedEntries()
	for b := range p.Blocks {
		for _, k := range keepRow[b] {
			reduced = reduced || !k
		}
	}
	if !reduced {
		return nil
	}
	ps.build(keepRow, removedLP, dropped)
	if len(ps.q.Blocks) == 0 || len(ps.q.C) == 0 {
		// Nothing would be left to solve: solve the problem as given.
		return nil
	}
	return ps
}

// negligible reports whether v was dropped.
func (ps *presolved) negligible(v float64) bool { return math.Abs(v) <= ps.tol }

// droppedEntry reports whether e is dropped: negligible, or in a removed
// row.
func (ps *presolved) droppedEntry(e Entry) bool {
	return ps.negligible(e.V) || !ps.keep[e.Block][e.I] || !ps.keep[e.Block][e.J]
}

// droppedComponent reports whether the component t of factor f is
// dropped: its contributions are negligible, or its row removed (where
// the factors of a matrix sum to zero, up to the row tolerance).
func (ps *presolved) droppedComponent(f Factor, t int, umax float64) bool {
	return ps.negligible(f.D*f.U.Value[t]*umax) || !ps.keep[f.Block][f.U.Index[t]]
}

// droppedEntries reports whether any entry of p is negligible.
func (ps *presolved) droppedEntries() bool {
	for _, mat := range ps.p.F {
		for _, e := range mat {
			if ps.droppedEntry(e) {
				return true
			}
		}
	}
	for _, fs := range ps.p.Factors {
		for _, f := range fs {
			umax := maxAbs(f.U.Value)
			for t := range f.U.Value {
				if ps.droppedComponent(f, t, umax) {
					return true
				}
			}
		}
	}
	return false
}

// maxAbs returns the largest magnitude in v (0 for an empty v).
func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	return m
}

// usedRows returns, per block, which rows stay: all rows of LP blocks;
// of a PSD block, the rows some F_i or F_0 needs (see the zero-row rule),
// or all of them if none would stay.
func (ps *presolved) usedRows(parts [][]Entry, wide []bool) [][]bool {
	p := ps.p
	keep := make([][]bool, len(p.Blocks))
	for b, blk := range p.Blocks {
		keep[b] = make([]bool, blk.Size)
		if isLP(p, b) {
			for j := range keep[b] {
				keep[b][j] = true
			}
		}
	}
	for _, e := range p.F[0] {
		if !isLP(p, e.Block) && math.Abs(e.V) > ps.rowTol && (e.I != e.J || e.V > 0) {
			keep[e.Block][e.I], keep[e.Block][e.J] = true, true
		}
	}
	ps.markRows(keep, parts, wide)
	for b := range p.Blocks {
		any := false
		for _, k := range keep[b] {
			any = any || k
		}
		if !any {
			for j := range keep[b] {
				keep[b][j] = true
			}
		}
	}
	return keep
}
