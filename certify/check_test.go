package certify

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/qc"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// TestCheckAbsorbsAnyMultipliers feeds the check arbitrary multipliers
// (not a solution at all): whatever the LMI's residual, the gammas it
// returns must make the paper's inequality hold at every sampled input
// pair. This tests the rigorous eigenvalue bound and the absorption
// without any solver.
func TestCheckAbsorbsAnyMultipliers(t *testing.T) {
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 5))
		l := 1 + int(seed%3)
		f1 := randnet.Paper(seed, 1+int(seed%2), l, 6, 1)
		q := quantise.Format{FracBits: 2}
		f2, err := quantise.Network(f1, quantise.Options{Weights: q, Biases: q})
		if err != nil {
			t.Fatal(err)
		}
		o := testTask()
		o.in.Pairing, o.in.Quant = []spec.Pairing{spec.Independent, spec.QuantisedInput, spec.SameInput}[seed%3], q
		if seed%2 == 1 {
			o.QC = QCPaper
		}
		nx := f1.InputSize()
		box := spec.Box{Lo: make([]float64, nx), Hi: make([]float64, nx)}
		for i := range nx {
			box.Lo[i], box.Hi[i] = -1, 0.5+rng.Float64()
		}
		r := rootRegion(box, &o)
		rb, err := boundsOf(context.Background(), f1, f2, &r, &o)
		if err != nil {
			t.Fatal(err)
		}
		m, err := buildLMI(f1, f2, &r, rb, &o, false)
		if err != nil {
			t.Fatal(err)
		}
		sp := m.problem(weights(&r, &o), 1)
		x := make([]float64, len(sp.C))
		for i := range x {
			x[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(5)-3))
		}
		ck, err := m.check(sp, x)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		bound := outward.SqrtUp(worstValue(ck.gammas, &r, &o))
		var ob observation
		ob.observe(context.Background(), f1, f2, &r, &o, testSearch(500, seed))
		if ob.err > bound {
			t.Fatalf("seed %d: error %v above the absorbed bound %v (margin %v)", seed, ob.err, bound, ck.margin)
		}
		if ck.margin <= 0 {
			t.Errorf("seed %d: random multipliers needed no margin", seed)
		}
	}
}

// TestMaxEigUpper compares the rigorous bound with the eigenvalues of
// diagonal matrices, where they are known exactly.
func TestMaxEigUpper(t *testing.T) {
	for _, diag := range [][]float64{{-1, -2, -3}, {1e-3, -5, 2}, {-1e-12, -1e-12}, {7}} {
		n := len(diag)
		m := newTestMatrix(n)
		for i, d := range diag {
			m.V[i*n+i] = d
		}
		s := make([]float64, n)
		for i := range s {
			s[i] = 1
		}
		got, err := maxEigUpper(m, s)
		if err != nil {
			t.Fatal(err)
		}
		want := diag[0]
		for _, d := range diag {
			want = max(want, d)
		}
		if got < want || got > want+1e-9*(1+math.Abs(want)) {
			t.Errorf("diag %v: bound %v, want just above %v", diag, got, want)
		}
	}
}

func TestCells(t *testing.T) {
	tests := []struct {
		f      quantise.Format
		lo, hi float64
		want   int
	}{
		{quantise.Format{FracBits: 2}, -1, 1, 9},    // {-1}, 3 negative cells, (-1/4, 1/4), 3 positive, {1}
		{quantise.Format{FracBits: 1}, 0, 1, 3},     // [0, 1/2], [1/2, 1], {1}
		{quantise.Format{FracBits: 2}, 0.3, 0.4, 1}, // inside one cell
		{quantise.Format{FracBits: 1, Rounding: quantise.Nearest}, -1, 1, 5},
		{quantise.Format{FracBits: 2, Rounding: quantise.Floor}, -1, 1, 9},
		{quantise.Format{FracBits: 30}, -1, 1, 0}, // too many: relaxed
		// Far from 0 the multiples of step/2 are not counted (k++ stalls
		// past 2^53, lo/half overflows): relaxed, not an endless loop.
		{quantise.Format{FracBits: 8}, 1e308, 1.7e308, 0},
		{quantise.Format{FracBits: 8}, 1e17, 1e17 + 64, 0},
		{quantise.Format{FracBits: 8}, -1e17 - 64, -1e17, 0},
	}
	for _, tc := range tests {
		cs := cells(tc.f, tc.lo, tc.hi)
		if len(cs) != tc.want {
			t.Errorf("%v on [%v, %v]: %d cells %v, want %d", tc.f, tc.lo, tc.hi, len(cs), cs, tc.want)
		}
		// Every x is in a cell whose value is q(x).
		for k := 0; k <= 1000 && cs != nil; k++ {
			x := tc.lo + (tc.hi-tc.lo)*float64(k)/1000
			covered := false
			for _, c := range cs {
				if c.A <= x && x <= c.B && c.V == tc.f.Round(x) {
					covered = true
				}
			}
			if !covered {
				t.Fatalf("%v: x = %v (q = %v) not covered by %v", tc.f, x, tc.f.Round(x), cs)
			}
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Options)
	}{
		{"qc", func(o *Options) { o.QC = 9 }},
		{"weights", func(o *Options) { o.Weights = -1 }},
		{"custom weight", func(o *Options) { o.Weights, o.Custom = WeightsCustom, Gammas{Gamma: math.NaN()} }},
		{"pieces", func(o *Options) { o.Refine.MaxPieces = -1 }},
		{"budget", func(o *Options) { o.Refine.TimeBudget = -1 }},
		{"ratio", func(o *Options) { o.Refine.TargetRatio = 0.5 }},
		{"samples", func(o *Options) { o.Samples = -1 }},
		{"search work", func(o *Options) { o.SearchWork = -1 }},
		{"search work NaN", func(o *Options) { o.SearchWork = math.NaN() }},
		{"solver", func(o *Options) { o.Solver.MaxIter = 0 }},
	}
	for _, tc := range tests {
		o := DefaultOptions()
		tc.edit(&o)
		if err := o.Validate(); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	o := DefaultOptions()
	if err := o.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
}

func TestBoundInputErrors(t *testing.T) {
	f1 := randnet.Paper(1, 1, 1, 4, 1)
	f2 := randnet.Paper(2, 2, 1, 4, 1)
	f3 := randnet.Paper(3, 1, 1, 4, 2)
	box := spec.Box{Lo: []float64{-1}, Hi: []float64{1}}
	tests := []struct {
		name   string
		f1, f2 *nn.Network
		box    spec.Box
		edit   func(*task)
		want   error
	}{
		{"inputs differ", f1, f2, box, nil, nn.ErrDimension},
		{"outputs differ", f1, f3, box, nil, nn.ErrDimension},
		{"box dim", f1, f1, spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}, nil, nn.ErrDimension},
		{"bad box", f1, f1, spec.Box{Lo: []float64{1}, Hi: []float64{-1}}, nil, spec.ErrBox},
		{"C too long", f1, f1, box, func(o *task) { o.q.C = []float64{1, 1} }, nn.ErrDimension},
		{"C empty", f1, f1, box, func(o *task) { o.q.C = []float64{} }, nn.ErrDimension},
		{"C not finite", f1, f1, box, func(o *task) { o.q.C = []float64{math.Inf(1)} }, spec.ErrQuantity},
		{"norm", f1, f1, box, func(o *task) { o.q.Norm = 7 }, spec.ErrQuantity},
		{"pairing", f1, f1, box, func(o *task) { o.in.Pairing = 7 }, spec.ErrInputs},
		{"frac bits", f1, f1, box, func(o *task) { o.in.Pairing, o.in.Quant.FracBits = spec.QuantisedInput, -2 }, spec.ErrInputs},
		{"input clamped", f1, f1, spec.Box{Lo: []float64{-1}, Hi: []float64{2}}, func(o *task) {
			o.in.Pairing, o.in.Quant = spec.QuantisedInput, quantise.Format{IntBits: 1, FracBits: 2, Saturate: true}
		}, ErrOptions},
	}
	for _, tc := range tests {
		o := testTask()
		if tc.edit != nil {
			tc.edit(&o)
		}
		_, err := o.bound(t.Context(), tc.f1, tc.f2, tc.box)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
}

func newTestMatrix(n int) *qc.Matrix { return qc.NewMatrix(n) }

func TestCertificateQuantity(t *testing.T) {
	for _, tc := range []struct {
		norm spec.Norm
		c    []float64
		want string
	}{
		{spec.Norm2, nil, "||f1(x1) - f2(x2)||_2"},
		{spec.NormInf, nil, "||f1(x1) - f2(x2)||_inf"},
		{spec.NormInf, []float64{0, 1}, "|f1_1(x1) - f2_1(x2)|"},
		{spec.Norm2, []float64{1, -1}, "|c^T (f1(x1) - f2(x2))|"},
		{spec.Norm2, []float64{0, 2}, "|c^T (f1(x1) - f2(x2))|"},
		{spec.Norm2, []float64{0, 0}, "|c^T (f1(x1) - f2(x2))|"},
	} {
		c := Certificate{Quantity: spec.Quantity{Norm: tc.norm, C: tc.c}}
		if got := c.Quantity.String(); got != tc.want {
			t.Errorf("norm %v, C %v: %q, want %q", tc.norm, tc.c, got, tc.want)
		}
	}
}

func TestCertificateMeasure(t *testing.T) {
	y1, y2 := []float64{1, 5, -2}, []float64{4, 1, -2} // differences -3, 4, 0
	for _, tc := range []struct {
		name string
		norm spec.Norm
		c    []float64
		want float64
	}{
		{"2-norm", spec.Norm2, nil, 5},
		{"inf-norm", spec.NormInf, nil, 4},
		{"output 1", spec.Norm2, []float64{0, 1, 0}, 4},
		{"output 0 under inf", spec.NormInf, []float64{1, 0, 0}, 3},
		{"margin", spec.Norm2, []float64{1, -1, 0}, 7},
		{"zero c", spec.Norm2, []float64{0, 0, 0}, 0},
	} {
		c := Certificate{Quantity: spec.Quantity{Norm: tc.norm, C: tc.c}}
		if got := c.Measure(y1, y2); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: Measure = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// testTask returns the tests' defaults: DefaultOptions with independent
// inputs and a 2-bit input quantiser for QuantisedInput.
func testTask() task {
	return task{Options: DefaultOptions(), timing: &Timing{},
		in: spec.Inputs{Pairing: spec.Independent, Quant: quantise.Format{FracBits: 2}}}
}

// bound runs Bound on box with the question and options of o.
func (o task) bound(ctx context.Context, f1, f2 *nn.Network, box spec.Box) (*Certificate, error) {
	in := o.in
	in.Box = box
	return Bound(ctx, f1, f2, in, o.q, o.Options)
}

// problem runs Problem on box with the question and options of o.
func (o task) problem(f1, f2 *nn.Network, box spec.Box) (*RootProblem, error) {
	in := o.in
	in.Box = box
	return Problem(f1, f2, in, o.q, o.Options)
}
