package sdp

import (
	"fmt"
	"io"
	"math"
)

// logger writes the iteration log: a header, then one line per iterate
// with fixed columns
//
//	iter  pobj  dobj  gap  pinf  dinf  mu  step
//
// where step is "primal/dual" step length that led to the iterate. Lines
// of the final barrier polish (see polish.go) continue the numbering; their
// dobj and dinf are those of the barrier's dual estimate, pinf is 0 and
// the dual step 0.
type logger struct {
	w      io.Writer
	header bool
}

func newLogger(w io.Writer) *logger { return &logger{w: w} }

// line logs one iterate.
func (l *logger) line(iter int, st *stats) {
	if l.w == nil {
		return
	}
	if !l.header {
		l.header = true
		fmt.Fprintf(l.w, "%4s %16s %16s %9s %9s %9s %9s %11s\n",
			"iter", "pobj", "dobj", "gap", "pinf", "dinf", "mu", "step")
	}
	step := "-"
	if iter > 0 {
		step = fmt.Sprintf("%.3f/%.3f", st.stepP, st.stepD)
	}
	fmt.Fprintf(l.w, "%4d %+16.9e %+16.9e %9.2e %9.2e %9.2e %9.2e %11s\n",
		iter, st.pobj, st.dobj, st.gap, st.pinf, st.dinf, st.mu, step)
}

// status logs how the solve ended.
func (l *logger) status(r *Result) {
	if l.w == nil {
		return
	}
	fmt.Fprintf(l.w, "status %s after %d iterations, pobj %+.9e dobj %+.9e\n",
		r.Status, r.Iterations, r.PrimalObjective, r.DualObjective)
}

// traceSolver turns on developer traces of the iteration internals
// (Schur residuals, refinement, polish), written to Settings.Log.
const traceSolver = false

// tracef writes a developer trace line when traceSolver is set.
func (s *solver) tracef(format string, a ...any) {
	if traceSolver && s.log.w != nil {
		fmt.Fprintf(s.log.w, format, a...)
	}
}

// traceSchur traces the accuracy of the corrector's Schur solve.
func (s *solver) traceSchur(sigma float64) {
	if !traceSolver {
		return
	}
	s.sch.mulSaved(s.dx, s.am)
	e := 0.0
	for i := range s.am {
		e = max(e, math.Abs(s.am[i]-s.rhs[i]))
	}
	s.tracef("   shift=%.1e resid=%.2e |rhs|=%.2e |dx|=%.2e sigma=%.2e\n",
		s.sch.shift, e, norm2(s.rhs), norm2(s.dx), sigma)
}
