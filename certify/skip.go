package certify

// Skip names why an SDP was not attempted.
type Skip int

// The reasons to skip an SDP.
const (
	// SkipNone: the SDP was attempted.
	SkipNone Skip = iota
	// SkipGraph: the networks are computation graphs (BoundGraph), for
	// which no LMI is built.
	SkipGraph
	// SkipGraphFloat32: as SkipGraph, with float32 arithmetic, which the
	// SDP (a model of exact reals) could not cover anyway.
	SkipGraphFloat32
	// SkipStructure: a network holds a layer the quadratic constraints do
	// not model (a convolution kept structured, ...).
	SkipStructure
	// SkipOrder: under a time budget, the LMI's order is over
	// MaxBudgetOrder.
	SkipOrder
	// SkipVariables: under a time budget, the SDP has more than
	// MaxBudgetVariables variables.
	SkipVariables
	// SkipClose: under a time budget, bound propagation is already within
	// Refine.TargetRatio of the observed error.
	SkipClose
	// SkipBudget: the time budget ran out before the SDP (during the
	// root's bound propagation, its cheap pieces, or, for the inf-norm,
	// the outputs certified before).
	SkipBudget
	// SkipCancelled: as SkipBudget, a signal (the context) instead.
	SkipCancelled
	// SkipPieces: the cheap refinement's pieces of bound propagation
	// (cheap.go) spent the work budget while still paying, where the
	// SDP of the whole set rarely beats them.
	SkipPieces
	// SkipQuantised: the SDP does not model the int8 quantisers for
	// this quantity (int8SDP).
	SkipQuantised
)

// String says in a phrase why the SDP was not run ("" for SkipNone), as
// a certificate's text says where its bound came from.
func (k Skip) String() string {
	switch k {
	case SkipNone:
		return ""
	case SkipGraph:
		return "the networks are graphs"
	case SkipGraphFloat32:
		return "float32 arithmetic is bounded through the graphs"
	case SkipStructure:
		return "a layer it does not model"
	case SkipOrder:
		return "its LMI too large for the time budget"
	case SkipVariables:
		return "too many variables for the time budget"
	case SkipClose:
		return "bound propagation close enough already"
	case SkipBudget:
		return "the time budget ran out before it"
	case SkipCancelled:
		return "the run was cancelled before it"
	case SkipPieces:
		return "the pieces of bound propagation spent the work budget first"
	case SkipQuantised:
		return "it models int8 quantisers only for the 2-norm of two or more outputs"
	}
	return "unknown"
}

// SDPSkip says why the SDP of the whole input set was not attempted: a
// kind, and the particulars of this case (the order, the count or the
// bounds that ruled it out) as a phrase.
type SDPSkip struct {
	Why    Skip
	Detail string
}

// Skipped reports whether the SDP was skipped (Why is not SkipNone).
func (s SDPSkip) Skipped() bool { return s.Why != SkipNone }

// String says why the SDP was skipped, as the certificate prints it ("" for
// SkipNone).
func (s SDPSkip) String() string {
	switch s.Why {
	case SkipNone:
		return ""
	case SkipGraph:
		return "the networks are computation graphs, not chains of layers: the bound is bound propagation's"
	case SkipGraphFloat32:
		return "float32 evaluation is bounded by bound propagation through the graphs: the SDP models real arithmetic"
	case SkipBudget, SkipCancelled, SkipPieces, SkipQuantised:
		return "SDP not run: " + s.Why.String()
	}
	return "SDP skipped: " + s.Detail
}

// skipError is the error of an SDP that buildLMI did not assemble.
type skipError struct{ skip SDPSkip }

// Error returns the skip's String.
func (e skipError) Error() string { return e.skip.String() }
