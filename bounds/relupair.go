package bounds

import (
	"math"
	"slices"

	"github.com/nnbound/nnbound/internal/outward"
)

// Planes for a neuron that is a ReLU in both networks, relaxed per row.
//
// With a = xi1 in [l, u] and d = xi2 - xi1 in [dl, du], the joint variables
// of the neuron are z1 = relu(a) and
//
//	delta = g(a, d) = relu(a + d) - relu(a) = max(d - relu(-a), -relu(a)).
//
// A row of a back-substitution meets them as lz z1 + ld delta, that is the
// function h(a, d) = lz relu(a) + ld g(a, d), which is linear on each of
// the four regions cut from the box by the lines a = 0 and a + d = 0. So
// for any plane A a + B d the maximum of h - A a - B d over the box is at a
// vertex of those regions, all among
//
//	the corners, (0, dl), (0, du), (0, 0), (l, -l), (u, -u), (-dl, dl), (-du, du)
//
// (those in the box), and the offset that makes the plane sound is exact up
// to rounding (at the first layer, over a polygon inside the box:
// relupoly.go). Relaxing z1 and delta one by one adds the largest gap of
// each line, attained at different vertices (the ReLU's chord at a = 0, the
// difference's chord at a = l or u). One plane for h per row is chosen
// instead, the lowest at the centre c of the box (for a plane minus h, the
// least mean gap): its value there is the concave envelope of h at c, max
// sum mu_v h(v) over convex weights mu of the vertices with sum mu_v v = c,
// a linear programme whose basic solutions are the triangles of vertices
// that contain c (best). The candidates beside those planes are the
// combinations of z1's lines (slopes 0, 1, the chord's) with delta's
// planes: the chord in d of the mean value theorem (diffrelax.go), the
// plane the layer's relaxation uses, and the facets of g's envelopes
// tilted in a, exact on the face a = l (both ReLUs off) or a = u (both on):
//
//	upper, exact at a = l:  du (a - l) / -l           (pinned at (0, du))
//	upper, exact at a = u:  d + dl (a - u) / u        (pinned at (0, dl))
//	lower, exact at a = l:  dl (a - l) / (u - l)      (pinned at (u, dl))
//	lower, exact at a = u:  d + du (a - u) / (u - l)  (pinned at (l, du))

// pairVertices returns the points of the box pre1 x dd among which the
// extremes of h minus any plane lie.
func pairVertices(pre1, dd Interval) [][2]float64 {
	l, u, dl, du := pre1.Lo, pre1.Hi, dd.Lo, dd.Hi
	cand := [...][2]float64{{l, dl}, {l, du}, {u, dl}, {u, du}, {0, dl}, {0, du}, {0, 0},
		{l, -l}, {u, -u}, {-dl, dl}, {-du, du}}
	out := make([][2]float64, 0, len(cand))
	for _, p := range cand {
		if p[0] >= l && p[0] <= u && p[1] >= dl && p[1] <= du {
			out = append(out, p)
		}
	}
	return out
}

// pairNeuron holds what the per-row planes of one neuron need: the box,
// the vertices with enclosures of relu(a) (exact) and g at each, and the
// candidate slopes.
type pairNeuron struct {
	i        int // the neuron
	pre1, dd Interval
	a, d     []float64  // the vertices
	relu     []float64  // relu(a) at each vertex
	gLo, gHi []float64  // g at each vertex lies in [gLo, gHi]
	zs       []float64  // candidate slopes of z1's line
	upD, loD []plane    // candidate planes of delta (slopes only) for ld >= 0 and ld < 0
	tri      []triangle // the triangles of vertices that contain the box's centre
	zLo, zHi float64    // the slopes of the layer's lines of z1
	poly     bool       // the points are those of a polygon inside the box (relupoly.go)
	ca, cd   float64    // centre(), kept: best compares planes there for every row
}

// newPairNeuron returns the per-row data of neuron i with a in pre1 and d
// in dd, or nil when the box is not finite or a does not straddle 0 (both
// ReLUs are then exact or nearly so with the lines of the layer). cur1 and
// cur2 are the lines of z1 and planes of delta the layer's relaxation uses
// (lower and upper).
func newPairNeuron(i int, pre1, dd Interval, z1Lo, z1Hi line, dLo, dHi plane) *pairNeuron {
	return newPairNeuronOn(i, pre1, dd, z1Lo, z1Hi, dLo, dHi, nil)
}

// newPairNeuronOn is newPairNeuron with the offsets taken over the points
// pts of a polygon inside the box (relupoly.go) instead of the box's, when
// pts is not nil.
func newPairNeuronOn(i int, pre1, dd Interval, z1Lo, z1Hi line, dLo, dHi plane, pts [][2]float64) *pairNeuron {
	l, u := pre1.Lo, pre1.Hi
	if !(l < 0 && u > 0) || !finiteAll([]Interval{pre1, dd}) {
		return nil
	}
	p := &pairNeuron{i: i, pre1: pre1, dd: dd, poly: pts != nil}
	if pts == nil {
		pts = pairVertices(pre1, dd)
	}
	nv := len(pts)
	p.a, p.d, p.relu, p.gLo, p.gHi = make([]float64, 0, nv), make([]float64, 0, nv), make([]float64, 0, nv), make([]float64, 0, nv), make([]float64, 0, nv)
	for _, v := range pts {
		a, d := v[0], v[1]
		p.a, p.d = append(p.a, a), append(p.d, d)
		p.relu = append(p.relu, max(a, 0))
		p.gLo = append(p.gLo, outward.SubDown(max(outward.AddDown(a, d), 0), max(a, 0)))
		p.gHi = append(p.gHi, outward.SubUp(max(outward.AddUp(a, d), 0), max(a, 0)))
	}
	p.ca, p.cd = p.centre()
	p.tri = centreTriangles(p.a, p.d, p.ca, p.cd)
	p.zLo, p.zHi = z1Lo.A, z1Hi.A
	p.zs = []float64{0, 1, u / (u - l)}
	for _, s := range []float64{z1Lo.A, z1Hi.A} {
		if s != 0 && s != 1 && s != p.zs[2] {
			p.zs = append(p.zs, s)
		}
	}
	dl, du := min(dd.Lo, 0), max(dd.Hi, 0)
	s := Interval{0, 1}
	p.upD = []plane{dHi, slopeChordAbove(s, dd), {du / -l, 0, 0}, {dl / u, 1, 0}}
	p.loD = []plane{dLo, slopeChordBelow(s, dd), {dl / (u - l), 0, 0}, {du / (u - l), 1, 0}}
	return p
}

// offset returns an upper bound of max over the vertices of h(a, d) - A a -
// B d for h = lz relu(a) + ld g(a, d): the float64 sum of five products has
// error at most 8u times the sum of their magnitudes (plus underflow).
func (p *pairNeuron) offset(lz, ld, A, B float64) float64 {
	var buf [2 * 16]float64
	hv, habs := p.rowTerms(lz, ld, buf[:])
	return p.offsetOf(hv, habs, lz, ld, A, B)
}

// rowTerms returns, per vertex k, h_k = lz relu_k + ld g_k (g's upper
// enclosure for ld >= 0, its lower one otherwise) and |lz relu_k| +
// |ld g_k|: the part of offset's sums that one row's planes share. buf,
// if long enough, holds them.
func (p *pairNeuron) rowTerms(lz, ld float64, buf []float64) (hv, habs []float64) {
	nv := len(p.a)
	if len(buf) < 2*nv {
		buf = make([]float64, 2*nv)
	}
	hv, habs = buf[:nv], buf[nv:2*nv]
	g := p.gHi
	if ld < 0 {
		g = p.gLo
	}
	g = g[:nv]
	for k, r := range p.relu[:nv] {
		t1, t2 := lz*r, ld*g[k]
		hv[k], habs[k] = t1+t2, math.Abs(t1)+math.Abs(t2)
	}
	return hv, habs
}

// offsetOf is offset with the row's terms hv, habs of rowTerms: the same
// sums, in the same order, to the bit.
func (p *pairNeuron) offsetOf(hv, habs []float64, lz, ld, A, B float64) float64 {
	c := math.Inf(-1)
	nv := len(p.a)
	d, hv, habs := p.d[:nv], hv[:nv], habs[:nv]
	for k, a := range p.a {
		t3, t4 := A*a, B*d[k]
		s := hv[k] - t3 - t4
		e := 8*outward.Unit*(habs[k]+math.Abs(t3)+math.Abs(t4)) + 4*outward.Tiny
		// c = max(c, s+e) but for the sign of a zero c, which the sum
		// below makes +0 either way: a branch the predictor gets right.
		if x := s + e; x > c || x != x {
			c = x
		}
	}
	return outward.Up(c + p.slack(lz, ld, A, B))
}

// best returns a plane A a + B d + C >= lz z1 + ld delta over the box, low
// at its centre c, with its exact offset. The least value at c of a sound
// plane is the concave envelope of h at c, max sum mu_v h(v) over convex
// weights mu of the vertices with sum mu_v v = c: a linear programme whose
// basic solutions are the triangles of vertices that contain c, and whose
// dual optimum is the plane through h on the best one when that is unique.
// So best tries the planes of the maxTriangles triangles with the highest
// h interpolated at c (moved off the ties, centre) against the
// combination of the layer's own lines, which it keeps unless they are
// lower beyond rounding: at the exact centre the two often tie, and keeping
// the layer's lines then gave slightly tighter final bounds on MNIST
// (median 0.487 of NeuroDiff's first pass against 0.491). With no triangle
// (a flat box) it tries all the candidate combinations.
func (p *pairNeuron) best(lz, ld float64) (plane, bool) {
	ca, cd := p.ca, p.cd
	var out plane
	bestV, found := math.Inf(1), false
	var buf [2 * 16]float64 // the row's terms (rowTerms) at the vertices
	hv, habs := p.rowTerms(lz, ld, buf[:])
	try := func(A, B float64) {
		pl := plane{A, B, p.offsetOf(hv, habs, lz, ld, A, B)}
		if v := pl.at(ca, cd); v < bestV {
			out, bestV, found = pl, v, true
		}
	}
	z, ds := p.zHi, p.upD
	if lz < 0 {
		z = p.zLo
	}
	if ld < 0 {
		ds = p.loD
	}
	try(lz*z+ld*ds[0].A, ld*ds[0].B)
	// Ties go to the layer's lines: the triangles' planes must be lower by
	// more than what moving the centre (centre) can change.
	if tol := 2e-6 * (math.Abs(lz)*(p.pre1.Hi-p.pre1.Lo) + math.Abs(ld)*(p.dd.Hi-p.dd.Lo+p.pre1.Hi-p.pre1.Lo)); found && tol < math.Inf(1) {
		bestV -= tol
	}
	if len(p.tri) == 0 {
		for _, sz := range p.zs {
			for _, q := range ds {
				try(lz*sz+ld*q.A, ld*q.B)
			}
		}
		return out, found
	}
	// The maxTriangles triangles of the highest h interpolated at the
	// centre, in the order of p.tri, the lowest replaced by a higher one;
	// m is the position of the lowest once all are filled.
	var top [maxTriangles]int
	var vals [maxTriangles]float64
	n, m := 0, 0
	for t := range p.tri {
		tr := &p.tri[t]
		v := tr.w[0]*hv[tr.v[0]] + tr.w[1]*hv[tr.v[1]] + tr.w[2]*hv[tr.v[2]]
		if n < maxTriangles {
			top[n], vals[n] = t, v
			n++
			if n == maxTriangles {
				m = argMin(vals[:])
			}
			continue
		}
		if v > vals[m] {
			top[m], vals[m] = t, v
			m = argMin(vals[:])
		}
	}
	for _, t := range top[:n] {
		tr := p.tri[t].v
		i, j, k := tr[0], tr[1], tr[2]
		a1, d1, h1 := p.a[i]-p.a[k], p.d[i]-p.d[k], hv[i]-hv[k]
		a2, d2, h2 := p.a[j]-p.a[k], p.d[j]-p.d[k], hv[j]-hv[k]
		det := a1*d2 - a2*d1
		try((h1*d2-h2*d1)/det, (a1*h2-a2*h1)/det)
	}
	return out, found
}

// centre returns the point where best compares planes: the box's centre
// moved by a millionth of its sides in a direction no line through two
// vertices has, so that a single triangle is optimal (at the exact centre,
// the diagonals and the line a = 0 through it give ties whose planes
// differ).
//
// Over a polygon (relupoly.go) the box's centre may lie outside it, where
// the least plane is no guide; the mean of the polygon's points, inside
// it, takes its place.
func (p *pairNeuron) centre() (ca, cd float64) {
	ca, cd = p.pre1.Lo/2+p.pre1.Hi/2, p.dd.Lo/2+p.dd.Hi/2
	if p.poly {
		ca, cd = 0, 0
		for k, a := range p.a {
			ca += a / float64(len(p.a))
			cd += p.d[k] / float64(len(p.a))
		}
	}
	return ca + 0.7548776662e-6*(p.pre1.Hi-p.pre1.Lo), cd + 0.5698402910e-6*(p.dd.Hi-p.dd.Lo)
}

// maxTriangles is the number of triangles best tries.
const maxTriangles = 3

// argMin returns the index of the least element of v (not empty).
func argMin(v []float64) int {
	m := 0
	for i, x := range v {
		if x < v[m] {
			m = i
		}
	}
	return m
}

// triangle is a triple of vertices v of a pairNeuron and the barycentric
// weights w of its centre in their triangle.
type triangle struct {
	v [3]int32
	w [3]float64
}

// centreTriangles returns the triples of vertices (a[i], d[i]) whose
// triangle contains (ca, cd), up to rounding, with the barycentric weights
// of (ca, cd) in each. Triangles thinner than 1e-9 of the box's area are
// left out: their weights are mostly rounding.
func centreTriangles(a, d []float64, ca, cd float64) []triangle {
	const slack = -1e-9 // barycentric weights this negative still count
	nv := len(a)
	tri := make([]triangle, 0, 4*nv) // about as many as a box's vertices give
	area := (slices.Max(a) - slices.Min(a)) * (slices.Max(d) - slices.Min(d))
	for i := 0; i < nv; i++ {
		for j := i + 1; j < nv; j++ {
			for k := j + 1; k < nv; k++ {
				a1, d1 := a[i]-a[k], d[i]-d[k]
				a2, d2 := a[j]-a[k], d[j]-d[k]
				det := a1*d2 - a2*d1
				if !(math.Abs(det) > 1e-9*area) || math.IsInf(det, 0) {
					continue
				}
				ea, ed := ca-a[k], cd-d[k]
				if al, be := (ea*d2-ed*a2)/det, (a1*ed-d1*ea)/det; al >= slack && be >= slack && 1-al-be >= slack {
					tri = append(tri, triangle{[3]int32{int32(i), int32(j), int32(k)}, [3]float64{al, be, 1 - al - be}})
				}
			}
		}
	}
	return tri
}

// relaxPairs is relaxStep on the joint variables (z1, delta) of a level of
// n neurons, where each row replaces lz z1_i + ld delta_i of every neuron
// of pairs by its own plane in (xi1_i, xi2_i - xi1_i) (columns i and n + i
// of the level below) and everything else by rel. Each coefficient the
// plane adds is rounded once (error at most 2u of the result times the
// variable's magnitude), and the offsets are summed with DotErr.
func (f *linearForm) relaxPairs(rel stepRelax, pairs []*pairNeuron, n int, mag []float64) {
	if len(pairs) == 0 {
		f.relaxStep(rel, mag, nil)
		return
	}
	raw := f.Lam.RawMatrix()
	np := len(pairs)
	planes := make([]plane, raw.Rows*np)
	for r := range raw.Rows {
		row := raw.Data[r*raw.Stride : r*raw.Stride+raw.Cols]
		for k, p := range pairs {
			lz, ld := row[p.i], row[n+p.i]
			if lz == 0 && ld == 0 {
				continue
			}
			pl, ok := p.best(lz, ld)
			if !ok || math.IsNaN(pl.C) || math.IsInf(pl.A, 0) || math.IsInf(pl.B, 0) {
				continue // relaxStep relaxes them with the layer's lines
			}
			planes[r*np+k] = pl
			row[p.i], row[n+p.i] = 0, 0
		}
	}
	f.relaxStep(rel, mag, nil)
	nraw := f.Lam.RawMatrix()
	for r := range nraw.Rows {
		out := nraw.Data[r*nraw.Stride : r*nraw.Stride+nraw.Cols]
		s, abs, coefErr := f.C[r], math.Abs(f.C[r]), 0.0
		for k, p := range pairs {
			pl := planes[r*np+k]
			if pl == (plane{}) {
				continue
			}
			out[p.i] += pl.A
			out[n+p.i] += pl.B
			coefErr += (2*outward.Unit*math.Abs(out[p.i])+outward.Tiny)*mag[p.i] +
				(2*outward.Unit*math.Abs(out[n+p.i])+outward.Tiny)*mag[n+p.i]
			s += pl.C
			abs += math.Abs(pl.C)
		}
		f.C[r] = s
		f.E[r] = outward.AddUp(f.E[r], outward.AddUp(coefErr*sumFactor(2*np), outward.DotErr(abs, np)))
	}
}
