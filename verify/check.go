package verify

import (
	"fmt"
	"math"
	"slices"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// A Criterion says whether a point violates the question: a Tolerance,
// or a two-network property (PropertyCriterion).
type Criterion interface {
	// validate reports a criterion that does not fit m outputs.
	validate(m int) error
	// measure returns the float64 measure of the difference d (see
	// Point.Measure).
	measure(d []float64) float64
	// judge returns an enclosure [mlo, mhi] of the exact measure and the
	// status of a point whose exact differences lie in [lo_k, hi_k].
	judge(lo, hi []float64) (mlo, mhi float64, s Status)
}

// CheckPoint is the one check of a counterexample, which every Violated
// verdict rests on. It evaluates f at x and g at xg with nn.Network.Eval
// (sharing no code with the search that found the point), encloses each
// exact difference g_k(xg) - f_k(x) of the real-valued networks with
// directed rounding (bounds.Points), and judges the enclosure:
//
//	Violated  every value of the enclosure violates c (its lower end is past eps)
//	Holds     every value satisfies c at this point
//	Unknown   the enclosure straddles the limit: float64 cannot tell
//
// A float64 difference past eps is not enough: with g a permutation of
// f's hidden neurons, whose difference is exactly 0, float64 evaluations
// may differ by an ulp. The point also carries f and g evaluated in
// float32 where they can be (nn.Network.EvalFloat32), as VNN-COMP
// evaluates a counterexample again. It is an error if x or xg has the
// wrong size.
func CheckPoint(f, g *nn.Network, x, xg []float64, c Criterion) (*Point, Status, error) {
	yf, yg, ef, eg, err := evalPair(f, g, x, xg)
	if err != nil {
		return nil, Unknown, err
	}
	f32, _ := f.EvalFloat32(x)
	g32, _ := g.EvalFloat32(xg)
	return judgePoint(x, xg, yf, yg, ef, eg, f32, g32, c)
}

// judgePoint returns the point of x and xg with the float64 outputs yf,
// yg, their enclosures ef, eg and their float32 evaluations (nil where
// there are none), and c's judgement of the enclosed difference.
func judgePoint(x, xg, yf, yg []float64, ef, eg []bounds.Interval, f32, g32 []float64, c Criterion) (*Point, Status, error) {
	if len(yf) != len(yg) {
		return nil, Unknown, fmt.Errorf("verify: network 1 has %d outputs, network 2 has %d: %w", len(yf), len(yg), nn.ErrDimension)
	}
	if err := c.validate(len(yf)); err != nil {
		return nil, Unknown, err
	}
	p := &Point{X: append([]float64(nil), x...), F: yf, G: yg, Diff: make([]float64, len(yf)),
		DiffLo: make([]float64, len(yf)), DiffHi: make([]float64, len(yf))}
	for k := range yf {
		p.Diff[k] = yg[k] - yf[k]
		p.DiffLo[k] = outward.SubDown(eg[k].Lo, ef[k].Hi)
		p.DiffHi[k] = outward.SubUp(eg[k].Hi, ef[k].Lo)
	}
	if !slices.Equal(x, xg) {
		p.XG = append([]float64(nil), xg...)
	}
	p.Measure = c.measure(p.Diff)
	var s Status
	p.MeasureLo, p.MeasureHi, s = c.judge(p.DiffLo, p.DiffHi)
	if f32 != nil && g32 != nil {
		p.F32, p.G32 = f32, g32
	}
	return p, s, nil
}

// evalPair returns f(x) and g(xg) in float64 (nn.Network.Eval) and
// enclosures of their exact values (enclose); an error if a size is wrong
// or the output counts differ.
func evalPair(f, g *nn.Network, x, xg []float64) (yf, yg []float64, ef, eg []bounds.Interval, err error) {
	if yf, err = f.Eval(x); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("verify: network 1: %w", err)
	}
	if yg, err = g.Eval(xg); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("verify: network 2: %w", err)
	}
	if len(yf) != len(yg) {
		return nil, nil, nil, nil, fmt.Errorf("verify: network 1 has %d outputs, network 2 has %d: %w", len(yf), len(yg), nn.ErrDimension)
	}
	if ef, err = enclose(f, x); err != nil {
		return nil, nil, nil, nil, err
	}
	if eg, err = enclose(g, xg); err != nil {
		return nil, nil, nil, nil, err
	}
	return yf, yg, ef, eg, nil
}

// enclose returns enclosures of the exact outputs of f at x.
func enclose(f *nn.Network, x []float64) ([]bounds.Interval, error) {
	pts, err := bounds.NewPoints(f, bounds.DefaultOptions())
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	return pts.At(x), nil
}

// absEnclosure returns an enclosure of |d| for d in [lo, hi].
func absEnclosure(lo, hi float64) (float64, float64) {
	switch {
	case lo > 0:
		return lo, hi
	case hi < 0:
		return -hi, -lo
	}
	return 0, max(-lo, hi)
}

// point checks x with CheckPoint against the decider's tolerance.
func (d *decider) point(x []float64) (*Point, Status) {
	p, s, err := CheckPoint(d.f, d.g, x, d.in.X2(x), d.tol)
	if err != nil {
		panic(err) // the dimensions were checked by Decide
	}
	return p, s
}

// validate is Validate, for Criterion.
func (t Tolerance) validate(m int) error { return t.Validate(m) }

// measure returns the tolerance's measure of d in float64: max_k |d_k|
// over the compared outputs (spec.PerOutput, spec.NormInf) or ||d||_2.
func (t Tolerance) measure(d []float64) float64 {
	if t.Norm == spec.Norm2 {
		return norm2(d)
	}
	m := 0.0
	for _, k := range t.compared(len(d)) {
		m = max(m, math.Abs(d[k]))
	}
	return m
}

// judge encloses the tolerance's measure of a difference in [lo, hi] and
// compares it with the epsilons: Violated when some output's (or the
// norm's) lower end exceeds its epsilon, Holds when every upper end is
// below it.
func (t Tolerance) judge(lo, hi []float64) (mlo, mhi float64, s Status) {
	if t.Norm == spec.Norm2 {
		sLo, sHi := 0.0, 0.0
		for k := range lo {
			a, b := absEnclosure(lo[k], hi[k])
			sLo = outward.AddDown(sLo, outward.MulDown(a, a))
			sHi = outward.AddUp(sHi, outward.MulUp(b, b))
		}
		mlo, mhi = outward.SqrtDown(max(sLo, 0)), outward.SqrtUp(sHi)
		return mlo, mhi, compare(mlo > t.Eps[0], mhi < t.Eps[0])
	}
	over, under := false, true
	for _, k := range t.compared(len(lo)) {
		a, b := absEnclosure(lo[k], hi[k])
		mlo, mhi = max(mlo, a), max(mhi, b)
		over = over || a > t.eps(k)
		under = under && b < t.eps(k)
	}
	return mlo, mhi, compare(over, under)
}

// compare returns Violated when over, else Holds when under, else Unknown.
func compare(over, under bool) Status {
	switch {
	case over:
		return Violated
	case under:
		return Holds
	}
	return Unknown
}

// PropertyCriterion returns the criterion of the property p, as read
// (whatever form DecideProperty decides it in): a point violates p when
// some constrained difference lies outside its range.
func PropertyCriterion(p *spec.Property) Criterion { return propertyCriterion{p} }

// propertyCriterion is the Criterion of a spec.Property.
type propertyCriterion struct{ p *spec.Property }

// validate reports an output index outside 0..m-1.
func (c propertyCriterion) validate(m int) error {
	for _, b := range c.p.Outputs {
		if b.K < 0 || b.K >= m {
			return fmt.Errorf("verify: the property bounds output %d (line %d), the networks return %d: %w", b.K, b.Line, m, nn.ErrDimension)
		}
	}
	return nil
}

// measure returns max_k |d_k| over the constrained outputs.
func (c propertyCriterion) measure(d []float64) float64 {
	m := 0.0
	for _, b := range c.p.Outputs {
		m = max(m, math.Abs(d[b.K]))
	}
	return m
}

// judge returns Violated when some constrained difference's enclosure
// lies wholly outside its range, Holds when every one lies inside; the
// measure's enclosure is that of max_k |d_k|.
func (c propertyCriterion) judge(lo, hi []float64) (mlo, mhi float64, s Status) {
	over, under := false, true
	for _, b := range c.p.Outputs {
		a, e := absEnclosure(lo[b.K], hi[b.K])
		mlo, mhi = max(mlo, a), max(mhi, e)
		over = over || b.Outside(lo[b.K], hi[b.K])
		under = under && b.Inside(lo[b.K], hi[b.K])
	}
	return mlo, mhi, compare(over, under)
}
