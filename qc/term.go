package qc

import (
	"fmt"
	"github.com/nnbound/nnbound/internal/outward"
	"math"
)

// Sign is the sign constraint of a term's multiplier in the S-procedure.
type Sign int

// The signs.
const (
	NonNeg Sign = iota // an inequality (a^T eta)(b^T eta) >= 0: multiplier >= 0
	Free               // an equality (a^T eta)(b^T eta) = 0: multiplier of any sign
)

// String returns "nonneg" or "free".
func (s Sign) String() string {
	switch s {
	case NonNeg:
		return "nonneg"
	case Free:
		return "free"
	}
	return fmt.Sprintf("Sign(%d)", int(s))
}

// Kind names the constraint a term comes from.
type Kind int

// The kinds of terms, by the builder that makes them.
const (
	KindInputBox           Kind = iota // (hi - x)(x - lo) >= 0, Appendix 3
	KindJointSum                       // (2hi - (x1+x2))((x1+x2) - 2lo) >= 0, Appendix 3
	KindJointDiff                      // ((hi-lo) - (x2-x1))((x2-x1) + (hi-lo)) >= 0, Appendix 3
	KindQuantDiff                      // (x2 - x1 - dlo)(dhi - (x2 - x1)) >= 0, Lemma 3
	KindQuantLinear                    // x2 - x1 - dlo >= 0 and dhi - (x2 - x1) >= 0, Lemma 3
	KindQuantSector                    // (x1 - x2) x2 >= 0 (truncation), Lemma 3
	KindSector                         // (phi - c - a xi)(b xi - (phi - c)) >= 0, Lemma 2
	KindSlopePair                      // slope restriction between two neurons, Lemma 2
	KindPositive                       // phi - alpha xi >= 0 (ReLU: phi >= 0), Lemma 2
	KindComplement                     // phi - xi >= 0, Lemma 2
	KindComplementarity                // (phi - xi)(phi - alpha xi) = 0, Lemma 2
	KindCross                          // phi (phi - xi) >= 0 (the script's crx_i), Lemma 2
	KindCrossPhi                       // phi phi >= 0 (the script's crx_ii), Lemma 2
	KindBounded                        // (phi - lo)(hi - phi) >= 0, Lemma 2
	KindBoundedLinear                  // phi - lo >= 0, hi - phi >= 0
	KindPreBox                         // (xi - l)(u - xi) >= 0 from pre-activation bounds
	KindPostBox                        // (phi - pl)(pu - phi) >= 0 from post-activation bounds
	KindTriangle                       // u (xi - l) - (u - l) phi >= 0 for an unstable ReLU
	KindTriangleProduct                // the triangle times phi >= 0 or phi - xi >= 0
	KindDiffSlope                      // slope restriction between corresponding neurons of the two networks
	KindDiffPreBox                     // (dxi - dl)(du - dxi) >= 0 from difference bounds
	KindDiffPostBox                    // (dphi - dl)(du - dphi) >= 0 from difference bounds
	KindDiffChord                      // chords of the slope restriction of corresponding neurons (linear)
	KindDiffChordProduct               // the product of the two chords >= 0
	KindNoise                          // (r - e)(e + r) >= 0 for a quantiser's rounding e, |e| <= r
	KindNoiseLinear                    // r - e >= 0 and e + r >= 0
	KindSat                            // t >= 0, t >= w and the triangle for an excess t = relu(w) of a clamp
	KindSatComplementarity             // t (t - w) = 0 for an excess t = relu(w) of a clamp
	KindFactProduct                    // a b >= 0 for two linear facts a, b >= 0 of different neurons (Facts)
	numKinds
)

var kindNames = [numKinds]string{
	"input_box", "joint_sum", "joint_diff", "quant_diff", "quant_linear", "quant_sector",
	"sector", "slope_pair", "positive", "complement", "complementarity", "cross", "cross_phi",
	"bounded", "bounded_linear", "pre_box", "post_box", "triangle", "triangle_product",
	"diff_slope", "diff_pre_box", "diff_post_box", "diff_chord", "diff_chord_product",
	"noise", "noise_linear", "sat", "sat_complementarity", "fact_product",
}

// String returns the kind's snake-case name.
func (k Kind) String() string {
	if k < 0 || k >= numKinds {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// Term is one quadratic constraint (A^T eta)(B^T eta) >= 0 (or = 0 when
// Sign is Free), i.e. eta^T M eta with M = (A B^T + B A^T)/2.
type Term struct {
	Kind Kind
	Sign Sign
	A, B Form
	// Where locates the term for diagnostics ("n1.L0[3]", "x1[0]").
	Where string
}

// Value returns the term's value (A^T eta)(B^T eta) in float64.
func (t Term) Value(eta []float64) float64 { return t.A.Eval(eta) * t.B.Eval(eta) }

// Linear returns the term g^T eta >= 0, the product of g with the constant.
func (l *Layout) Linear(kind Kind, g Form, where string) Term {
	return Term{Kind: kind, Sign: NonNeg, A: g, B: Unit(l.One), Where: where}
}

// Matrix is a dense symmetric n x n matrix with an entrywise error radius:
// the exact matrix lies within R of V entrywise. Both are row-major and
// full (both triangles stored).
type Matrix struct {
	N    int
	V, R []float64
}

// NewMatrix returns the zero n x n matrix.
func NewMatrix(n int) *Matrix {
	return &Matrix{N: n, V: make([]float64, n*n), R: make([]float64, n*n)}
}

// AddTerm adds c * (a b^T + b a^T)/2 for the term's forms a, b, where c is
// an exact float64, widening R by the radii of the forms and the rounding
// of every operation.
func (m *Matrix) AddTerm(c float64, t Term) { m.addProduct(c, t.A, t.B) }

// AddSquare adds c * f f^T.
func (m *Matrix) AddSquare(c float64, f Form) { m.addProduct(c, f, f) }

// addProduct adds c (a b^T + b a^T)/2 entry by entry. For entry (i, j) the
// exact increment is c (a_i b_j + b_i a_j)/2 with a_i, b_j known within
// their radii; the float64 evaluation t = c*fl(fl(a_i b_j) + fl(b_i a_j))/2
// and the update fl(v + t) round by at most u times |a_i b_j| + |b_i a_j| +
// |s|, |c s|/2 and |v + t| respectively.
func (m *Matrix) addProduct(c float64, a, b Form) {
	if c == 0 {
		return
	}
	ac := math.Abs(c)
	// Collect the union of the indices: the increment at (i, j) involves
	// a_i b_j and b_i a_j.
	idx, av, ar, bv, br := union(a, b)
	n := m.N
	for p, i := range idx {
		for q, j := range idx {
			p1 := av[p] * bv[q]
			p2 := bv[p] * av[q]
			if p1 == 0 && p2 == 0 && ar[p]+br[q]+br[p]+ar[q] == 0 {
				continue
			}
			s := p1 + p2
			inc := c * s * 0.5
			old := m.V[i*n+j]
			v := old + inc
			m.V[i*n+j] = v
			// Propagated error of the inexact coefficients.
			e := ar[p]*(math.Abs(bv[q])+br[q]) + math.Abs(av[p])*br[q] +
				br[p]*(math.Abs(av[q])+ar[q]) + math.Abs(bv[p])*ar[q]
			e *= ac * 0.5
			// Rounding of the products, the sum, the scaling and the update.
			e += outward.Unit * (ac*0.5*(math.Abs(p1)+math.Abs(p2)+2*math.Abs(s)) + math.Abs(v))
			e += 4 * 0x1p-1074
			m.R[i*n+j] = radUp(m.R[i*n+j] + e)
		}
	}
}

// union returns the union of the indices of a and b with both forms'
// coefficients and radii (zero where a form has no such index).
func union(a, b Form) (idx []int, av, ar, bv, br []float64) {
	i, j := 0, 0
	for i < len(a.Idx) || j < len(b.Idx) {
		switch {
		case j == len(b.Idx) || (i < len(a.Idx) && a.Idx[i] < b.Idx[j]):
			idx = append(idx, a.Idx[i])
			av, ar, bv, br = append(av, a.Val[i]), append(ar, a.rad(i)), append(bv, 0), append(br, 0)
			i++
		case i == len(a.Idx) || b.Idx[j] < a.Idx[i]:
			idx = append(idx, b.Idx[j])
			av, ar, bv, br = append(av, 0), append(ar, 0), append(bv, b.Val[j]), append(br, b.rad(j))
			j++
		default:
			idx = append(idx, a.Idx[i])
			av, ar, bv, br = append(av, a.Val[i]), append(ar, a.rad(i)), append(bv, b.Val[j]), append(br, b.rad(j))
			i++
			j++
		}
	}
	return idx, av, ar, bv, br
}

// Quad returns eta^T V eta in float64 (for tests).
func (m *Matrix) Quad(eta []float64) float64 {
	s := 0.0
	for i := range m.N {
		for j := range m.N {
			s += eta[i] * m.V[i*m.N+j] * eta[j]
		}
	}
	return s
}
