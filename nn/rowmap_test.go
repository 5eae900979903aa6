package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestRowMap checks a row map against its dense matrix I ⊗ W (Apply,
// ApplyTransposed, AbsMap, Eval with a bias to the bit), BlockDiagonal's
// recovery of it and its refusals, and the fusion of scales on either
// side.
func TestRowMap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	w := mat.NewDense(3, 4, nil)
	w.Apply(func(_, _ int, _ float64) float64 { return r.NormFloat64() }, w)
	m := &RowMap{W: w, Rows: 5}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	d := DenseMap{m.Dense()}
	x, y := randVec(r, m.In(), 1), randVec(r, m.Out(), 1)
	for _, c := range []struct {
		name      string
		got, want func(dst, v []float64)
		v         []float64
		out       int
	}{
		{"apply", m.Apply, d.Apply, x, m.Out()},
		{"transposed", m.ApplyTransposed, d.ApplyTransposed, y, m.In()},
		{"abs", m.AbsMap().Apply, d.AbsMap().Apply, x, m.Out()},
	} {
		got, want := make([]float64, c.out), make([]float64, c.out)
		c.got(got, c.v)
		c.want(want, c.v)
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Errorf("%s %d: %v, dense %v", c.name, i, got[i], want[i])
			}
		}
	}
	b := randVec(r, m.Out(), 1)
	got, want := make([]float64, m.Out()), make([]float64, m.Out())
	(&Affine{M: m, B: b}).Eval(got, [][]float64{x})
	(&Affine{M: d, B: b}).Eval(want, [][]float64{x})
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("eval %d: %v, dense %v", i, got[i], want[i])
		}
	}
	if back, ok := BlockDiagonal(d.W, 5); !ok || !mat.Equal(back.W, w) {
		t.Errorf("BlockDiagonal of I ⊗ W: %v", ok)
	}
	off := mat.DenseCopyOf(d.W)
	off.Set(0, 4, 1e-300)
	uneq := mat.DenseCopyOf(d.W)
	uneq.Set(14, 19, uneq.At(14, 19)+1e-15)
	for name, c := range map[string]struct {
		w    *mat.Dense
		rows int
	}{"off-diagonal entry": {off, 5}, "unequal block": {uneq, 5}, "one row": {d.W, 1}, "rows not dividing": {d.W, 4}} {
		if _, ok := BlockDiagonal(c.w, c.rows); ok {
			t.Errorf("%s: taken for a row map", name)
		}
	}
	// a scale repeating on the rows, before and after, fuses into W
	before, after := &Scale{S: make([]float64, m.In())}, &Scale{S: make([]float64, m.Out())}
	for i := range before.S {
		before.S[i] = float64(1 + i%4)
	}
	for i := range after.S {
		after.S[i] = float64(2 + i%3)
	}
	for name, f := range map[string]*Affine{
		"before": fuseAffine(&Affine{M: before}, &Affine{M: m}, 1<<20),
		"after":  fuseAffine(&Affine{M: m}, &Affine{M: after}, 1<<20),
	} {
		if _, ok := f.M.(*RowMap); !ok {
			t.Fatalf("%s: fused into %T", name, f.M)
		}
		in := make([]float64, m.In())
		h, want, got := make([]float64, m.Out()), make([]float64, m.Out()), make([]float64, m.Out())
		if name == "before" {
			before.Apply(in, x)
			m.Apply(want, in)
		} else {
			m.Apply(h, x)
			after.Apply(want, h)
		}
		f.M.Apply(got, x)
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Errorf("%s fused %d: %v, want %v", name, i, got[i], want[i])
			}
		}
	}
}
