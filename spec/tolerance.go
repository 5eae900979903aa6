package spec

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/nnbound/nnbound/internal/outward"
)

// ErrTolerance reports an ill-formed Tolerance.
var ErrTolerance = errors.New("invalid tolerance")

// Tolerance is the epsilon of epsilon-equivalence, a Quantity's norm with
// its limits: g is within the tolerance of f at x when
//
//	PerOutput:  |g_k(x) - f_k(x)| < Eps[k]  for every compared output k
//	NormInf:    max_k |g_k(x) - f_k(x)| < Eps[0]
//	Norm2:      ||g(x) - f(x)||_2 < Eps[0]
//
// The inequalities are strict, as in ReluDiff and NeuroDiff
// (-eps < f'_t - f_t < eps); a violation is an input where one of them
// fails by a positive amount (for PerOutput, |d_k| > Eps[k]). Judge is
// the one comparison of a difference with the tolerance; every checker
// of a counterexample rests on it.
type Tolerance struct {
	// Norm is PerOutput, NormInf or Norm2 (the zero value).
	Norm Norm
	// Eps holds the epsilons: for PerOutput one per output, or one for
	// all; for NormInf and Norm2 exactly one. Each is positive and
	// finite.
	Eps []float64
	// Outputs, if not nil, restricts PerOutput to these outputs (a
	// target output, as in the peers' ACAS Xu runs); the others are not
	// compared.
	Outputs []int
}

// Validate checks the tolerance against a network with m outputs.
func (t Tolerance) Validate(m int) error {
	if t.Norm != PerOutput && t.Norm != NormInf && t.Norm != Norm2 {
		return fmt.Errorf("spec: unknown norm %d: %w", int(t.Norm), ErrTolerance)
	}
	want := "1"
	ok := len(t.Eps) == 1
	if t.Norm == PerOutput && m != 1 {
		want = fmt.Sprintf("1 or %d (one per output)", m)
		ok = ok || len(t.Eps) == m
	}
	if !ok {
		return fmt.Errorf("spec: %d epsilons for norm %v and %d outputs, want %s: %w", len(t.Eps), t.Norm, m, want, ErrTolerance)
	}
	for i, e := range t.Eps {
		if !(e > 0) || math.IsInf(e, 0) {
			return fmt.Errorf("spec: epsilon %d is %v, want positive and finite: %w", i, e, ErrTolerance)
		}
	}
	if t.Outputs != nil && t.Norm != PerOutput {
		return fmt.Errorf("spec: Outputs given for norm %v, want per-output: %w", t.Norm, ErrTolerance)
	}
	if t.Outputs != nil && len(t.Outputs) == 0 {
		return fmt.Errorf("spec: Outputs is empty: %w", ErrTolerance)
	}
	seen := map[int]bool{}
	for _, k := range t.Outputs {
		if k < 0 || k >= m || seen[k] {
			return fmt.Errorf("spec: output %d out of range 0..%d or repeated: %w", k, m-1, ErrTolerance)
		}
		seen[k] = true
	}
	return nil
}

// Clone returns a copy of t that shares no slice with it.
func (t Tolerance) Clone() Tolerance {
	return Tolerance{Norm: t.Norm, Eps: slices.Clone(t.Eps), Outputs: slices.Clone(t.Outputs)}
}

// String describes t as a verdict's bound line prints it:
// "norm per-output; epsilon 0.01", the epsilons as one number or a list.
func (t Tolerance) String() string {
	eps := fmt.Sprint(t.Eps)
	if len(t.Eps) == 1 {
		eps = fmt.Sprint(t.Eps[0])
	}
	return fmt.Sprintf("norm %v; epsilon %s", t.Norm, eps)
}

// EpsAt returns the epsilon of output k (PerOutput) or the norm's epsilon.
func (t Tolerance) EpsAt(k int) float64 {
	if len(t.Eps) == 1 {
		return t.Eps[0]
	}
	return t.Eps[k]
}

// Compared returns the outputs the tolerance compares among m: Outputs,
// or all of them.
func (t Tolerance) Compared(m int) []int {
	if t.Outputs != nil {
		return append([]int(nil), t.Outputs...)
	}
	out := make([]int, m)
	for k := range out {
		out[k] = k
	}
	return out
}

// Quantity returns the quantity the tolerance bounds over all outputs:
// ||d||_2 for Norm2, max_k |d_k| otherwise (PerOutput scales each
// output by its own epsilon on top of it).
func (t Tolerance) Quantity() Quantity {
	if t.Norm == Norm2 {
		return Quantity{Norm: Norm2}
	}
	return Quantity{Norm: NormInf}
}

// Measure returns the tolerance's measure of the difference d in
// float64: ||d||_2 (Norm2), else max_k |d_k| over the compared outputs.
func (t Tolerance) Measure(d []float64) float64 {
	if t.Norm == Norm2 {
		return Quantity{Norm: Norm2}.Measure(d, make([]float64, len(d)))
	}
	m := 0.0
	for _, k := range t.Compared(len(d)) {
		m = max(m, math.Abs(d[k]))
	}
	return m
}

// Ratio returns the measure of the difference d on the outputs open, in
// units of the tolerance, in float64: max_k |d_k| / eps_k for PerOutput
// and NormInf, ||d||_2 / eps for Norm2 (over every output). The tolerance
// holds at d exactly when the ratio is below 1; the ratio steers
// searches, Judge decides.
func (t Tolerance) Ratio(d []float64, open []int) float64 {
	if t.Norm == Norm2 {
		return t.Measure(d) / t.Eps[0]
	}
	r := 0.0
	for _, k := range open {
		r = max(r, math.Abs(d[k])/t.EpsAt(k))
	}
	return r
}

// Judge compares a difference known only to lie in the box [lo, hi] (lo_k
// <= d_k <= hi_k, an enclosure of an exact difference or of a set of
// them) with the tolerance, every operation rounded outward. It returns
// an enclosure [mlo, mhi] of the measure (see Measure) over the box, and
//
//	exceeds  every d in the box violates the tolerance (some output's, or
//	         the norm's, lower end is past its epsilon)
//	within   every d in the box satisfies it (every upper end is below)
//
// Neither holds when the box straddles a limit.
func (t Tolerance) Judge(lo, hi []float64) (mlo, mhi float64, exceeds, within bool) {
	if t.Norm == Norm2 {
		sLo, sHi := 0.0, 0.0
		for k := range lo {
			a, b := AbsEnclosure(lo[k], hi[k])
			sLo = outward.AddDown(sLo, outward.MulDown(a, a))
			sHi = outward.AddUp(sHi, outward.MulUp(b, b))
		}
		mlo, mhi = outward.SqrtDown(max(sLo, 0)), outward.SqrtUp(sHi)
		return mlo, mhi, mlo > t.Eps[0], mhi < t.Eps[0]
	}
	within = true
	for _, k := range t.Compared(len(lo)) {
		a, b := AbsEnclosure(lo[k], hi[k])
		mlo, mhi = max(mlo, a), max(mhi, b)
		exceeds = exceeds || a > t.EpsAt(k)
		within = within && b < t.EpsAt(k)
	}
	return mlo, mhi, exceeds, within
}

// AbsEnclosure returns the range of |d| for d in [lo, hi].
func AbsEnclosure(lo, hi float64) (float64, float64) {
	switch {
	case lo > 0:
		return lo, hi
	case hi < 0:
		return -hi, -lo
	}
	return 0, max(-lo, hi)
}
