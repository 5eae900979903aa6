package verify

import (
	"errors"
	"fmt"
	"math"

	"github.com/nnbound/nnbound/spec"
)

// ErrTolerance reports an ill-formed Tolerance.
var ErrTolerance = errors.New("invalid tolerance")

// Tolerance is the epsilon of epsilon-equivalence: g is within the
// tolerance of f at x when
//
//	spec.PerOutput:  |g_k(x) - f_k(x)| < Eps[k]  for every output k
//	spec.NormInf:    max_k |g_k(x) - f_k(x)| < Eps[0]
//	spec.Norm2:      ||g(x) - f(x)||_2 < Eps[0]
//
// The inequalities are strict, as in ReluDiff and NeuroDiff
// (-eps < f'_t - f_t < eps); a violation is an input where one of them
// fails by a positive amount (for spec.PerOutput, |d_k| > Eps[k]).
type Tolerance struct {
	// Norm is spec.PerOutput, spec.NormInf or spec.Norm2 (the zero
	// value).
	Norm spec.Norm
	// Eps holds the epsilons: for spec.PerOutput one per output, or one
	// for all; for spec.NormInf and spec.Norm2 exactly one. Each is
	// positive and finite.
	Eps []float64
	// Outputs, if not nil, restricts spec.PerOutput to these outputs (a
	// target output, as in the peers' ACAS Xu runs); the others are not
	// compared.
	Outputs []int
}

// Validate checks the tolerance against a network with m outputs.
func (t Tolerance) Validate(m int) error {
	if t.Norm != spec.PerOutput && t.Norm != spec.NormInf && t.Norm != spec.Norm2 {
		return fmt.Errorf("verify: unknown norm %d: %w", int(t.Norm), ErrTolerance)
	}
	want := "1"
	ok := len(t.Eps) == 1
	if t.Norm == spec.PerOutput {
		want = fmt.Sprintf("1 or %d", m)
		ok = ok || len(t.Eps) == m
	}
	if !ok {
		return fmt.Errorf("verify: %d epsilons for norm %v and %d outputs, want %s: %w", len(t.Eps), t.Norm, m, want, ErrTolerance)
	}
	for i, e := range t.Eps {
		if !(e > 0) || math.IsInf(e, 0) {
			return fmt.Errorf("verify: epsilon %d is %v, want positive and finite: %w", i, e, ErrTolerance)
		}
	}
	if t.Outputs != nil && t.Norm != spec.PerOutput {
		return fmt.Errorf("verify: Outputs given for norm %v, want per-output: %w", t.Norm, ErrTolerance)
	}
	if t.Outputs != nil && len(t.Outputs) == 0 {
		return fmt.Errorf("verify: Outputs is empty: %w", ErrTolerance)
	}
	seen := map[int]bool{}
	for _, k := range t.Outputs {
		if k < 0 || k >= m || seen[k] {
			return fmt.Errorf("verify: output %d out of range 0..%d or repeated: %w", k, m-1, ErrTolerance)
		}
		seen[k] = true
	}
	return nil
}

// eps returns the epsilon of output k (spec.PerOutput) or the norm's epsilon.
func (t Tolerance) eps(k int) float64 {
	if len(t.Eps) == 1 {
		return t.Eps[0]
	}
	return t.Eps[k]
}

// compared returns the outputs the tolerance compares among m.
func (t Tolerance) compared(m int) []int {
	if t.Outputs != nil {
		return append([]int(nil), t.Outputs...)
	}
	out := make([]int, m)
	for k := range out {
		out[k] = k
	}
	return out
}

// ratio returns the measure of the difference d on the outputs open, in
// units of the tolerance: max_k |d_k| / eps_k for spec.PerOutput and spec.NormInf,
// ||d||_2 / eps for spec.Norm2 (over every output). The tolerance holds at d
// exactly when the ratio is below 1.
func (t Tolerance) ratio(d []float64, open []int) float64 {
	if t.Norm == spec.Norm2 {
		return norm2(d) / t.Eps[0]
	}
	r := 0.0
	for _, k := range open {
		r = max(r, math.Abs(d[k])/t.eps(k))
	}
	return r
}

// norm2 returns ||d||_2 as spec.Quantity measures it (overflowing only
// when the norm does).
func norm2(d []float64) float64 {
	return spec.Quantity{Norm: spec.Norm2}.Measure(d, make([]float64, len(d)))
}
