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

// A Criterion says whether a point violates the question: a
// spec.Tolerance, or a two-network property (PropertyCriterion).
type Criterion interface {
	// Validate reports a criterion that does not fit m outputs.
	Validate(m int) error
	// Measure returns the float64 measure of the difference d (see
	// Point.Measure).
	Measure(d []float64) float64
	// Judge returns an enclosure [mlo, mhi] of the exact measure of a
	// difference in [lo, hi], and whether every such difference surely
	// violates the criterion (exceeds) or surely satisfies it (within);
	// see spec.Tolerance.Judge.
	Judge(lo, hi []float64) (mlo, mhi float64, exceeds, within bool)
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
	if err := c.Validate(len(yf)); err != nil {
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
	p.Measure = c.Measure(p.Diff)
	var exceeds, within bool
	p.MeasureLo, p.MeasureHi, exceeds, within = c.Judge(p.DiffLo, p.DiffHi)
	s := compare(exceeds, within)
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

// point checks x with CheckPoint against the decider's tolerance.
func (d *decider) point(x []float64) (*Point, Status) {
	p, s, err := CheckPoint(d.f, d.g, x, d.in.X2(x), d.tol)
	if err != nil {
		panic(err) // the dimensions were checked by Decide
	}
	return p, s
}

// compare returns Violated when exceeds, else Holds when within, else
// Unknown.
func compare(exceeds, within bool) Status {
	switch {
	case exceeds:
		return Violated
	case within:
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

// Validate reports an output index outside 0..m-1.
func (c propertyCriterion) Validate(m int) error {
	for _, b := range c.p.Outputs {
		if b.K < 0 || b.K >= m {
			return fmt.Errorf("verify: the property bounds output %d (line %d), the networks return %d: %w", b.K, b.Line, m, nn.ErrDimension)
		}
	}
	return nil
}

// Measure returns max_k |d_k| over the constrained outputs.
func (c propertyCriterion) Measure(d []float64) float64 {
	m := 0.0
	for _, b := range c.p.Outputs {
		m = max(m, math.Abs(d[b.K]))
	}
	return m
}

// Judge reports exceeds when some constrained difference's enclosure
// lies wholly outside its range, within when every one lies inside; the
// measure's enclosure is that of max_k |d_k|.
func (c propertyCriterion) Judge(lo, hi []float64) (mlo, mhi float64, exceeds, within bool) {
	within = true
	for _, b := range c.p.Outputs {
		a, e := spec.AbsEnclosure(lo[b.K], hi[b.K])
		mlo, mhi = max(mlo, a), max(mhi, e)
		exceeds = exceeds || b.Outside(lo[b.K], hi[b.K])
		within = within && b.Inside(lo[b.K], hi[b.K])
	}
	return mlo, mhi, exceeds, within
}
