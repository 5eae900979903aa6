package bounds

import (
	"context"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// triangleLP returns the maximum of xi^k_t over the triangle relaxation of
// the ReLU network f with the pre-activation bounds of net (layers below
// k), by the simplex method: the value optimised slopes approach (the
// optimal slopes of back-substitution attain the LP's dual optimum).
//
// Variables v = (x, z^0, ..., z^{k-1}), free; with xi^j_i = W^j_i z^{j-1} +
// b^j_i and [l, u] = net.Pre[j][i]:
//
//	lo <= x <= hi
//	z^j_i = 0                              (u <= 0)
//	z^j_i = xi^j_i                         (l >= 0)
//	z^j_i >= 0, z^j_i >= xi^j_i, z^j_i <= u (xi^j_i - l) / (u - l)   (otherwise)
func triangleLP(t *testing.T, f *nn.Network, net *Net, k, target int) float64 {
	t.Helper()
	offs := []int{0}
	size := len(net.In)
	for j := range k {
		offs = append(offs, size)
		size += f.Layers[j].Out()
	}
	var gRows [][]float64
	var h []float64
	addG := func(row []float64, v float64) { gRows = append(gRows, row); h = append(h, v) }
	addA := func(row []float64, v float64) { // as two inequalities
		neg := make([]float64, len(row))
		for i, x := range row {
			neg[i] = -x
		}
		addG(row, v)
		addG(neg, -v)
	}
	for i, x := range net.In {
		r := make([]float64, size)
		r[i] = 1
		addG(r, x.Hi)
		r = make([]float64, size)
		r[i] = -1
		addG(r, -x.Lo)
	}
	// xi returns the coefficients of xi^j_i on v (scaled by s) and its constant.
	xi := func(j, i int, s float64) ([]float64, float64) {
		r := make([]float64, size)
		w := f.Layers[j].W.RawMatrix()
		for c, v := range w.Data[i*w.Stride : i*w.Stride+w.Cols] {
			r[offs[j]+c] = s * v
		}
		return r, s * f.Layers[j].B[i]
	}
	for j := range k {
		for i, p := range net.Pre[j] {
			zi := offs[j+1] + i
			switch {
			case p.Hi <= 0:
				r := make([]float64, size)
				r[zi] = 1
				addA(r, 0)
			case p.Lo >= 0:
				r, c := xi(j, i, -1)
				r[zi] = 1
				addA(r, -c)
			default:
				r := make([]float64, size)
				r[zi] = -1
				addG(r, 0)
				r, c := xi(j, i, 1) // xi - z <= 0
				r[zi] = -1
				addG(r, -c)
				s := p.Hi / (p.Hi - p.Lo) // z - s xi <= -s l
				r, c = xi(j, i, -s)
				r[zi] = 1
				addG(r, -c-s*p.Lo)
			}
		}
	}
	obj, _ := xi(k, target, -1)
	dense := func(rows [][]float64) *mat.Dense {
		m := mat.NewDense(len(rows), size, nil)
		for i, r := range rows {
			m.SetRow(i, r)
		}
		return m
	}
	c, aNew, bNew := lp.Convert(obj, dense(gRows), h, nil, nil)
	opt, _, err := lp.Simplex(c, aNew, bNew, 1e-10, nil)
	if err != nil {
		t.Skipf("simplex: %v", err)
	}
	_, c0 := xi(k, target, 1)
	return -opt + c0
}

func TestOptimisedApproachesLP(t *testing.T) {
	// The optimised slopes close most of the gap between the heuristic
	// slopes' bound and the triangle LP's optimum (which no choice of
	// slopes can beat).
	rng := rand.New(rand.NewPCG(25, 0))
	var gapSym, gapOpt float64
	for trial := range 8 {
		f := boundstest.Network(rng, []int{3, 8, 8, 8, 1}, 1, nn.Activation{Kind: nn.ReLU})
		s, _ := symbolicState(context.Background(), lowered{f: f}, boxIntervals(spec.Box{Lo: []float64{-1, -1, -1}, Hi: []float64{1, 1, 1}}), nil)
		k := len(f.Layers) - 1
		rows, sign := []int{0}, []float64{1}
		sym := s.backSubstitute(k, rows, sign, nil)[0]
		o := s.slopeOpt(k, rows, sign)
		o.run(DefaultOptimiseSettings())
		opt := s.backSubstitute(k, rows, sign, o.slopes)[0]
		best := triangleLP(t, f, s.net, k, 0)
		if opt < best-1e-6*(1+abs(best)) {
			t.Fatalf("trial %d: optimised bound %v below the LP optimum %v", trial, opt, best)
		}
		gapSym += sym - best
		gapOpt += opt - best
	}
	t.Logf("gap to the LP optimum: heuristic slopes %.4g, optimised %.4g", gapSym, gapOpt)
	if gapOpt > 0.1*gapSym {
		t.Errorf("optimised slopes close only %.0f%% of the gap to the LP", 100*(1-gapOpt/gapSym))
	}
}

func abs(v float64) float64 { return max(v, -v) }
