package verify

import (
	"slices"

	"github.com/nnbound/nnbound/nn"
)

// Top1Point is an input with both networks' outputs and classes there,
// evaluated by nn.Network.Eval (float64) and enclosed with directed
// rounding, independently of the search that found it (CheckTop1).
type Top1Point struct {
	// X is the input of f; XG that of g when it differs from X (omitted
	// otherwise).
	X  []float64 `json:"x"`
	XG []float64 `json:"x_g,omitempty"`
	// F and G are f(X) and g(XG) in float64.
	F []float64 `json:"f"`
	G []float64 `json:"g"`
	// ClassF and ClassG are the classes of F and G: the index of the
	// largest output, the first on a tie.
	ClassF int `json:"class_f"`
	ClassG int `json:"class_g"`
	// FLo, FHi and GLo, GHi enclose the exact outputs of the real-valued
	// networks at X and XG.
	FLo []float64 `json:"f_lo"`
	FHi []float64 `json:"f_hi"`
	GLo []float64 `json:"g_lo"`
	GHi []float64 `json:"g_hi"`
	// FGrid and GGrid report outputs on a quantiser's grid, each enclosure
	// holding one grid point, which is then the exact output: FLo = FHi
	// (GLo = GHi) are the grid points, exact ties included (top1grid.go).
	FGrid bool `json:"f_grid,omitempty"`
	GGrid bool `json:"g_grid,omitempty"`
}

// CheckTop1 is the one check of a top-1 disagreement, which every
// Violated verdict of DecideTop1 rests on. It evaluates f at x and g at
// xg with nn.Network.Eval, encloses their exact outputs with directed
// rounding (bounds.Points, as CheckPoint), narrows those of outputs on a
// quantiser's grid to the exact grid points (snapToGrid), and judges the
// enclosures:
//
//	Violated  no class k is strictly largest in both f and g: for every k
//	          some j != k has lo(f_j) >= hi(f_k) or lo(g_j) >= hi(g_k)
//	Holds     some class k has lo(f_k) > hi(f_j) and lo(g_k) > hi(g_j)
//	          for every j != k: both networks pick k, strictly
//	Unknown   the enclosures cannot tell (a near tie)
//
// A tie in f or in g counts as a disagreement. It is an error if x or xg
// has the wrong size or the networks' output counts differ.
func CheckTop1(f, g *nn.Network, x, xg []float64) (*Top1Point, Status, error) {
	yf, yg, ef, eg, err := evalPair(f, g, x, xg)
	if err != nil {
		return nil, Unknown, err
	}
	m := len(yf)
	p := &Top1Point{X: slices.Clone(x), F: yf, G: yg, ClassF: argmax(yf), ClassG: argmax(yg),
		FLo: make([]float64, m), FHi: make([]float64, m), GLo: make([]float64, m), GHi: make([]float64, m)}
	for k := range m {
		p.FLo[k], p.FHi[k] = ef[k].Lo, ef[k].Hi
		p.GLo[k], p.GHi[k] = eg[k].Lo, eg[k].Hi
	}
	if !slices.Equal(x, xg) {
		p.XG = slices.Clone(xg)
	}
	p.FGrid = snapToGrid(outputGrid(f), p.FLo, p.FHi)
	p.GGrid = snapToGrid(outputGrid(g), p.GLo, p.GHi)
	return p, judgeTop1(p.FLo, p.FHi, p.GLo, p.GHi), nil
}

// judgeTop1 judges outputs enclosed in [flo, fhi] and [glo, ghi] (see
// CheckTop1).
func judgeTop1(flo, fhi, glo, ghi []float64) Status {
	for k := range flo {
		if strictMax(flo, fhi, k) && strictMax(glo, ghi, k) {
			return Holds
		}
	}
	for k := range flo {
		if !notMax(flo, fhi, k) && !notMax(glo, ghi, k) {
			return Unknown
		}
	}
	return Violated
}

// strictMax reports whether output k exceeds every other for every value
// of the enclosures [lo, hi].
func strictMax(lo, hi []float64, k int) bool {
	for j := range lo {
		if j != k && !(lo[k] > hi[j]) {
			return false
		}
	}
	return true
}

// notMax reports whether output k is not strictly the largest for any
// value of the enclosures: some other output is at least as large.
func notMax(lo, hi []float64, k int) bool {
	for j := range lo {
		if j != k && lo[j] >= hi[k] {
			return true
		}
	}
	return false
}

// Class returns a classifier's class for the outputs y: the index of the
// largest value, the first on a tie (-1 for an empty y). A tie is a
// disagreement for DecideTop1 whatever Class says.
func Class(y []float64) int { return argmax(y) }

// argmax returns the index of the largest value of y, the first on a tie
// (-1 for an empty y).
func argmax(y []float64) int {
	arg := -1
	for k, v := range y {
		if arg < 0 || v > y[arg] {
			arg = k
		}
	}
	return arg
}
