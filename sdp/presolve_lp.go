package sdp

import "slices"

// lpCoordID numbers the LP coordinates of p: coordinate (b, k) of an LP
// block b is first[b] + k.
func lpCoordIDs(p *Problem) (first []int, n int) {
	first = make([]int, len(p.Blocks))
	for b, blk := range p.Blocks {
		first[b] = -1
		if isLP(p, b) {
			first[b] = n
			n += blk.Size
		}
	}
	return first, n
}

// eliminateLP applies the forced-zero rule (see presolve.go), recording
// the eliminated constraints in ps.elim and the removed coordinates in
// ps.coords. It returns which coordinates (by lpCoordIDs) were removed.
func (ps *presolved) eliminateLP() (removed []bool) {
	p := ps.p
	m := len(p.C)
	first, n := lpCoordIDs(p)
	removed = make([]bool, n)
	eliminated := make([]bool, m)
	if n == 0 {
		return removed
	}
	type triple struct {
		k int
		v float64
	}
	rows := make([][]triple, m)
	hasPSD := ps.live[1:]
	pinned := make([]bool, n) // touched by a factor: never removed
	for i, mat := range p.F {
		if i == 0 {
			continue
		}
		for _, e := range mat {
			if isLP(p, e.Block) && !ps.negligible(e.V) {
				rows[i-1] = append(rows[i-1], triple{first[e.Block] + e.I, e.V})
			}
		}
	}
	for _, fs := range p.Factors {
		for _, f := range fs {
			if isLP(p, f.Block) {
				for _, ix := range f.U.Index {
					pinned[first[f.Block]+ix] = true
				}
			}
		}
	}
	index := map[int]int{} // removed coordinate -> position in ps.coords
	for changed := true; changed; {
		changed = false
		for i, row := range rows {
			if eliminated[i] || hasPSD[i] || p.C[i] != 0 {
				continue
			}
			pos, neg, blocked := false, false, false
			var live []triple
			for _, t := range row {
				if removed[t.k] {
					continue
				}
				pos = pos || t.v > 0
				neg = neg || t.v < 0
				blocked = blocked || pinned[t.k]
				live = append(live, t)
			}
			if pos == neg || blocked { // none left, both signs, or a factor there
				continue
			}
			eliminated[i], changed = true, true
			ec := elimCon{con: i, pos: pos}
			for _, t := range live {
				removed[t.k] = true
				index[t.k] = len(ps.coords)
				ec.coords = append(ec.coords, len(ps.coords))
				ec.val = append(ec.val, t.v)
				ps.coords = append(ps.coords, removedCoord{})
			}
			ps.elim = append(ps.elim, ec)
		}
	}
	if len(ps.elim) == 0 {
		return removed
	}
	// Where each removed coordinate is, F_0 there and every constraint's
	// entry there (for lift).
	for b, blk := range p.Blocks {
		if first[b] < 0 {
			continue
		}
		for k := range blk.Size {
			if c, ok := index[first[b]+k]; ok {
				ps.coords[c].block, ps.coords[c].index = b, k
			}
		}
	}
	for i, mat := range p.F {
		for _, e := range mat {
			if first[e.Block] < 0 || ps.droppedEntry(e) {
				continue
			}
			c, ok := index[first[e.Block]+e.I]
			if !ok {
				continue
			}
			rc := &ps.coords[c]
			if i == 0 {
				rc.f0 += e.V
				continue
			}
			rc.con = append(rc.con, i-1)
			rc.val = append(rc.val, e.V)
		}
	}
	return removed
}

// liveConstraints reports which constraints keep a non-negligible entry
// or factor outside the removed LP coordinates.
func (ps *presolved) liveConstraints(removedLP []bool) []bool {
	p := ps.p
	first, _ := lpCoordIDs(p)
	live := make([]bool, len(p.C))
	for i, mat := range p.F {
		if i == 0 {
			continue
		}
		for _, e := range mat {
			if first[e.Block] >= 0 && !ps.negligible(e.V) && !removedLP[first[e.Block]+e.I] {
				live[i-1] = true
			}
		}
		live[i-1] = live[i-1] || ps.live[i]
	}
	return live
}

// lift sets the eliminated variables of x so that every removed LP slack
// sum_j F_j[k] x_j - F_0[k] (without F_0 when withF0 is false) is
// non-negative. Constraints are lifted in the reverse order of their
// elimination: a later one may touch the coordinates of an earlier one,
// never the reverse, and each moves its slacks only upwards.
func (ps *presolved) lift(x []float64, withF0 bool) {
	for _, ec := range ps.elim {
		x[ec.con] = 0
	}
	for _, ec := range slices.Backward(ps.elim) {
		v := 0.0
		for t, ci := range ec.coords {
			rc := &ps.coords[ci]
			slack := 0.0
			if withF0 {
				slack = -rc.f0
			}
			for a, j := range rc.con {
				slack += rc.val[a] * x[j]
			}
			need := -slack / ec.val[t]
			if ec.pos {
				v = max(v, need)
			} else {
				v = min(v, need)
			}
		}
		x[ec.con] = v
	}
}
