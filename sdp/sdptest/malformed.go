package sdptest

import (
	"math"

	"github.com/nnbound/nnbound/sdp"
)

// Malformed is an ill-formed problem and the sentinel error that Solve
// (through Problem.Validate) must wrap for it.
type Malformed struct {
	Name    string
	Problem *sdp.Problem
	Err     error
}

// MalformedCases returns one problem per way a problem can be
// ill-formed, each a small change to the 2 x 2 problem
//
//	minimise x  subject to  x I - [[0, 1], [1, 0]] >= 0
//
// (optimum 1), which is well-formed.
func MalformedCases() []Malformed {
	base := func() *sdp.Problem {
		return &sdp.Problem{
			Blocks: []sdp.Block{{Size: 2}},
			C:      []float64{1},
			F: []sdp.Matrix{
				{{I: 0, J: 1, V: 1}},
				{{I: 0, J: 0, V: 1}, {I: 1, J: 1, V: 1}},
			},
		}
	}
	with := func(change func(p *sdp.Problem)) *sdp.Problem {
		p := base()
		change(p)
		return p
	}
	factor := func(f sdp.Factor) func(p *sdp.Problem) {
		return func(p *sdp.Problem) { p.Factors = [][]sdp.Factor{nil, {f}} }
	}
	unit := sdp.SparseVec{Index: []int{0}, Value: []float64{1}}
	return []Malformed{
		{"no blocks", with(func(p *sdp.Problem) { p.Blocks = nil }), sdp.ErrDimension},
		{"empty block", with(func(p *sdp.Problem) { p.Blocks[0].Size = 0 }), sdp.ErrDimension},
		{"negative block", with(func(p *sdp.Problem) { p.Blocks[0].Size = -2 }), sdp.ErrDimension},
		{"too few matrices", with(func(p *sdp.Problem) { p.F = p.F[:1] }), sdp.ErrDimension},
		{"too many matrices", with(func(p *sdp.Problem) { p.F = append(p.F, nil) }), sdp.ErrDimension},
		{"entry outside block", with(func(p *sdp.Problem) { p.F[1][1].J = 2 }), sdp.ErrDimension},
		{"negative index", with(func(p *sdp.Problem) { p.F[0][0].I = -1 }), sdp.ErrDimension},
		{"missing block", with(func(p *sdp.Problem) { p.F[1][0].Block = 1 }), sdp.ErrDimension},
		{"off-diagonal in diagonal block", with(func(p *sdp.Problem) { p.Blocks[0].Diagonal = true }), sdp.ErrDimension},
		{"NaN entry", with(func(p *sdp.Problem) { p.F[0][0].V = math.NaN() }), sdp.ErrNotFinite},
		{"infinite cost", with(func(p *sdp.Problem) { p.C[0] = math.Inf(1) }), sdp.ErrNotFinite},
		{"factor lists", with(func(p *sdp.Problem) { p.Factors = [][]sdp.Factor{nil} }), sdp.ErrDimension},
		{"factor on F0", with(func(p *sdp.Problem) {
			p.Factors = [][]sdp.Factor{{{D: 1, U: unit}}, nil}
		}), sdp.ErrDimension},
		{"factor in missing block", with(factor(sdp.Factor{Block: 3, D: 1, U: unit})), sdp.ErrDimension},
		{"factor in diagonal block", with(func(p *sdp.Problem) {
			p.Blocks = append(p.Blocks, sdp.Block{Size: 2, Diagonal: true})
			factor(sdp.Factor{Block: 1, D: 1, U: unit})(p)
		}), sdp.ErrDimension},
		{"factor index outside block", with(factor(sdp.Factor{D: 1, U: sdp.SparseVec{Index: []int{2}, Value: []float64{1}}})), sdp.ErrDimension},
		{"factor index repeated", with(factor(sdp.Factor{D: 1, U: sdp.SparseVec{Index: []int{1, 1}, Value: []float64{1, 2}}})), sdp.ErrDimension},
		{"factor lengths differ", with(factor(sdp.Factor{D: 1, U: sdp.SparseVec{Index: []int{0, 1}, Value: []float64{1}}})), sdp.ErrDimension},
		{"factor weight NaN", with(factor(sdp.Factor{D: math.NaN(), U: unit})), sdp.ErrNotFinite},
		{"huge PSD block", with(func(p *sdp.Problem) { p.Blocks[0].Size = 1<<31 - 1 }), sdp.ErrTooLarge},
		{"huge diagonal block", with(func(p *sdp.Problem) {
			p.Blocks = append(p.Blocks, sdp.Block{Size: 1<<31 - 1, Diagonal: true})
		}), sdp.ErrTooLarge},
		{"huge Schur complement", with(func(p *sdp.Problem) {
			p.C = make([]float64, 1<<22)
			p.F = make([]sdp.Matrix, len(p.C)+1)
		}), sdp.ErrTooLarge},
		{"factor value infinite", with(factor(sdp.Factor{D: 1, U: sdp.SparseVec{Index: []int{0}, Value: []float64{math.Inf(-1)}}})), sdp.ErrNotFinite},
	}
}
