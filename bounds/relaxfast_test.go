package bounds

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/nn"
	"gonum.org/v1/gonum/mat"
)

// oddCoefs replaces, at random, some of the coefficients and constants of
// the bounds of s by 0, -0, infinities or NaN, and returns s packed.
func oddCoefs(rng *rand.Rand, s stepRelax) stepRelax {
	odd := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN()}
	for _, bs := range [][]affineBound{s.Lower, s.Upper} {
		for i := range bs {
			bs[i].terms = append([]term(nil), bs[i].terms...)
			for k := range bs[i].terms {
				if rng.IntN(6) == 0 {
					bs[i].terms[k].coef = odd[rng.IntN(len(odd))]
				}
			}
			if rng.IntN(10) == 0 {
				bs[i].C = odd[rng.IntN(len(odd))]
			}
		}
	}
	return s.packed()
}

// TestRelaxStepFast checks the specialised steps (relaxFast)
// against relaxStep's general loop, to the bit, on random tables of both
// shapes and several sizes, with and without per-row slopes, with odd
// coefficients (0, -0, infinities, NaN) in the bounds and in the form,
// rows of zeros and infinite magnitudes; and that a table of neither
// shape takes the general loop. NaNs compare equal whatever their bits:
// where two NaNs meet in a sum, the one the sum keeps depends on the order
// of the operands the compiler chose, which Go leaves unspecified.
func TestRelaxStepFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	same := func(a, b []float64) bool {
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(a[i] != a[i] && b[i] != b[i]) {
				return false
			}
		}
		return len(a) == len(b)
	}
	checked := map[relaxShape]int{}
	for trial := range 60 {
		n := []int{1, 2, 3, 7, 30}[trial%5]
		own, joint := randomSteps(rng, n)
		if trial%3 == 0 {
			own, joint = oddCoefs(rng, own), oddCoefs(rng, joint)
		}
		mixed := joint
		mixed.Upper = append([]affineBound(nil), joint.Upper...)
		mixed.Upper[n] = affineBound{[]term{{n, 1}, {0, 1}}, 0} // delta's columns swapped
		mixed = mixed.packed()
		for _, c := range []struct {
			rel  stepRelax
			want relaxShape
		}{{own, shapeOwn}, {joint, shapeJoint}, {mixed, shapeGeneral}} {
			rel := c.rel
			if rel.table.fast.shape != c.want {
				t.Fatalf("n %d: shape %d, want %d", n, rel.table.fast.shape, c.want)
			}
			general := *rel.table
			general.fast = fastBounds{}
			slow := rel
			slow.table = &general
			mag := make([]float64, rel.cols)
			for i := range mag {
				mag[i] = 1 + rng.Float64()
			}
			if trial%7 == 0 {
				mag[rng.IntN(len(mag))] = math.Inf(1)
			}
			fl := newFreeLines(nn.Activation{Kind: nn.ReLU}, make([]Interval, len(rel.Lower)))
			for i := range fl.side {
				fl.side[i], fl.lo[i], fl.hi[i] = int8(rng.IntN(3)-1), -rng.Float64(), rng.Float64()
			}
			rows := 6
			for _, ov := range []*rowSlopes{nil, newRowSlopes(&fl, rel, rows)} {
				if ov != nil {
					for i := range ov.s {
						ov.s[i] = rng.NormFloat64()
					}
				}
				f := randomForm(rng, rows, len(rel.Lower))
				raw := f.Lam.RawMatrix()
				odd := []float64{math.Inf(-1), math.Inf(1), math.Float64frombits(0xfff8000000000001), math.Copysign(0, -1)}
				for k := range 4 {
					raw.Data[rng.IntN(len(raw.Data))] = odd[k]
				}
				clear(raw.Data[5*raw.Stride : 5*raw.Stride+raw.Cols]) // a row of zeros
				g := &linearForm{Lam: mat.DenseCopyOf(f.Lam), C: append([]float64(nil), f.C...), E: append([]float64(nil), f.E...)}
				f.relaxStep(rel, mag, ov)
				g.relaxStep(slow, mag, ov)
				if !same(f.Lam.RawMatrix().Data, g.Lam.RawMatrix().Data) || !same(f.C, g.C) || !same(f.E, g.E) {
					t.Errorf("n %d, shape %d, slopes %v: the specialised and the general step differ", n, c.want, ov != nil)
				}
				checked[c.want]++
			}
		}
	}
	if checked[shapeOwn] == 0 || checked[shapeJoint] == 0 {
		t.Fatalf("checked %v", checked)
	}
}
