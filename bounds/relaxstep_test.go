package bounds

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"gonum.org/v1/gonum/mat"
)

// randomSteps returns the two shapes of stepRelax that back-substitution
// meets: a network's own lines on n neurons (lineRelax) and the joint
// relaxation of (z1, delta) on 2n variables, whose delta bounds have two
// terms (jointRelax).
func randomSteps(rng *rand.Rand, n int) (own, joint stepRelax) {
	var rel relaxation
	for range n {
		l, u := randomInterval(rng)
		lo, up := relax(nn.Activation{Kind: nn.ReLU}, l, u)
		rel.Lower, rel.Upper = append(rel.Lower, lo), append(rel.Upper, up)
	}
	own = lineRelax(rel)
	joint = stepRelax{Lower: make([]affineBound, 2*n), Upper: make([]affineBound, 2*n), cols: 2 * n}
	for i := range n {
		joint.Lower[i], joint.Upper[i] = own.Lower[i], own.Upper[i]
		joint.Lower[n+i] = affineBound{[]term{{i, rng.NormFloat64()}, {n + i, rng.NormFloat64()}}, rng.NormFloat64()}
		joint.Upper[n+i] = affineBound{[]term{{i, rng.NormFloat64()}, {n + i, rng.NormFloat64()}}, rng.NormFloat64()}
	}
	return own, joint.packed()
}

// randomForm returns a form of rows targets on cols variables with
// coefficients of random signs, some zero.
func randomForm(rng *rand.Rand, rows, cols int) *linearForm {
	lam := mat.NewDense(rows, cols, nil)
	for r := range rows {
		for i := range cols {
			if rng.IntN(8) > 0 {
				lam.Set(r, i, rng.NormFloat64())
			}
		}
	}
	c := make([]float64, rows)
	for r := range c {
		c[r] = rng.NormFloat64()
	}
	return newForm(lam, c, false)
}

// relaxStepPlain is relaxStep read straight from the bounds, as it was
// before they were packed (relaxTable): the reference its results must
// equal to the bit.
func (f *linearForm) relaxStepPlain(rel stepRelax, mag []float64, ov *rowSlopes) {
	raw := f.Lam.RawMatrix()
	maxTerms := 1
	for i := range rel.Lower {
		maxTerms = max(maxTerms, len(rel.Lower[i].terms), len(rel.Upper[i].terms))
	}
	next := newScratch(raw.Rows, rel.cols, true)
	nraw := next.RawMatrix()
	absNew := make([]float64, rel.cols)
	relC, tinyC := 2*float64(maxTerms+1)*outward.Unit, float64(maxTerms)*outward.Tiny
	for r := range raw.Rows {
		row := raw.Data[r*raw.Stride : r*raw.Stride+raw.Cols]
		out := nraw.Data[r*nraw.Stride : r*nraw.Stride+rel.cols]
		clear(absNew)
		s, abs := f.C[r], math.Abs(f.C[r])
		sr := ov.row(r)
		for i, l := range row {
			if l == 0 {
				continue
			}
			if a, ok := sr.at(i, l >= 0); ok {
				p := l * a
				out[i] += p
				absNew[i] += math.Abs(p)
				continue
			}
			b := &rel.Upper[i]
			if l < 0 {
				b = &rel.Lower[i]
			}
			t := l * b.C
			s += t
			abs += math.Abs(t)
			for _, tm := range b.terms {
				p := l * tm.coef
				out[tm.col] += p
				absNew[tm.col] += math.Abs(p)
			}
		}
		prodErr := 0.0
		for j, a := range absNew {
			prodErr += (relC*a + tinyC) * mag[j]
		}
		f.C[r] = s
		f.E[r] = outward.AddUp(f.E[r], outward.AddUp(prodErr*sumFactor(rel.cols), outward.DotErr(abs, raw.Cols)))
	}
	f.replaceLam(next)
}

// TestRelaxStepTable checks relaxStep on packed bounds against
// relaxStepPlain, to the bit, with and without per-row slopes, also where
// a variable's two bounds have terms in different columns and with
// infinite, NaN and negative zero coefficients.
func TestRelaxStepTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	own, joint := randomSteps(rng, 30)
	mixed := joint
	mixed.Lower = append([]affineBound(nil), joint.Lower...)
	mixed.Lower[3] = affineBound{[]term{{40, 0.5}}, 1} // not in the column of Upper[3]
	mixed = mixed.packed()
	for _, c := range []struct {
		name string
		rel  stepRelax
	}{{"own", own}, {"joint", joint}, {"mixed", mixed}} {
		name, rel := c.name, c.rel
		mag := make([]float64, rel.cols)
		for i := range mag {
			mag[i] = 1 + rng.Float64()
		}
		fl := newFreeLines(nn.Activation{Kind: nn.ReLU}, make([]Interval, len(rel.Lower)))
		for i := range fl.side {
			fl.side[i], fl.lo[i], fl.hi[i] = int8(rng.IntN(3)-1), 0, 1
		}
		for _, ov := range []*rowSlopes{nil, newRowSlopes(&fl, rel, 5)} {
			f := randomForm(rng, 5, len(rel.Lower))
			f.Lam.Set(1, 2, math.Inf(-1))
			f.Lam.Set(2, 3, math.Float64frombits(0xfff8000000000001)) // NaN with the sign bit set
			f.Lam.Set(3, 5, math.Copysign(0, -1))
			g := &linearForm{Lam: mat.DenseCopyOf(f.Lam), C: append([]float64(nil), f.C...), E: append([]float64(nil), f.E...)}
			f.relaxStep(rel, mag, ov)
			g.relaxStepPlain(rel, mag, ov)
			same := func(a, b []float64) bool {
				for i := range a {
					if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
						return false
					}
				}
				return len(a) == len(b)
			}
			if !same(f.Lam.RawMatrix().Data, g.Lam.RawMatrix().Data) || !same(f.C, g.C) || !same(f.E, g.E) {
				t.Errorf("%s, slopes %v: packed and unpacked bounds differ", name, ov != nil)
			}
		}
	}
}

// BenchmarkRelaxStep times relaxStep, and its general loop ("-general"),
// on the two shapes of randomSteps with 50 neurons and 20 target rows, a
// node's typical sizes on ACAS Xu, without and with per-row slopes
// ("-slopes", a third of the variables with a free upper line and a
// third with a free lower one).
func BenchmarkRelaxStep(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	own, joint := randomSteps(rng, 50)
	for _, c := range []struct {
		name string
		rel  stepRelax
	}{{"own", own}, {"joint", joint}} {
		name, rel := c.name, c.rel
		mag := make([]float64, rel.cols)
		for i := range mag {
			mag[i] = 1
		}
		f := randomForm(rng, 20, len(rel.Lower))
		fl := newFreeLines(nn.Activation{Kind: nn.ReLU}, make([]Interval, len(rel.Lower)))
		for i := range fl.side {
			fl.side[i], fl.lo[i], fl.hi[i] = int8(rng.IntN(3)-1), 0, 1
		}
		slopes := newRowSlopes(&fl, rel, 20)
		general := *rel.table
		general.fast = fastBounds{}
		slow := rel
		slow.table = &general
		for _, v := range []struct {
			label string
			rel   stepRelax
			ov    *rowSlopes
		}{{"", rel, nil}, {"-general", slow, nil}, {"-slopes", rel, slopes}, {"-slopes-general", slow, slopes}} {
			b.Run(name+v.label, func(b *testing.B) {
				for b.Loop() {
					g := &linearForm{Lam: newScratch(20, len(rel.Lower), false), C: make([]float64, 20), E: make([]float64, 20)}
					copy(g.Lam.RawMatrix().Data, f.Lam.RawMatrix().Data)
					copy(g.C, f.C)
					g.relaxStep(v.rel, mag, v.ov)
					g.recycle()
				}
			})
		}
	}
}
