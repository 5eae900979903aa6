package verify

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/nnbound/nnbound/spec"
)

// Status is how a decision ended.
type Status int

// The statuses.
const (
	// Unknown: neither proved nor refuted (Reason says why).
	Unknown Status = iota
	// Holds: proved for every input of the box.
	Holds
	// Violated: an input where the tolerance fails, re-evaluated with
	// directed rounding (CheckPoint).
	Violated
)

var statusNames = [...]string{"unknown", "holds", "violated"}

// String returns "unknown", "holds" or "violated".
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// MarshalText returns the status's name, for JSON.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Reason says why a decision is Unknown.
type Reason int

// The reasons.
const (
	// NoReason: the decision is Holds or Violated.
	NoReason Reason = iota
	// Timeout: the context's deadline passed.
	Timeout
	// Cancelled: the context was cancelled.
	Cancelled
	// NodeLimit: Options.MaxNodes nodes were bounded.
	NodeLimit
	// Precision: a box too narrow to halve in float64 was left unsettled.
	Precision
)

var reasonNames = [...]string{"", "timeout", "cancelled", "node limit", "precision"}

// String returns the reason's name ("" for NoReason).
func (r Reason) String() string {
	if r < 0 || int(r) >= len(reasonNames) {
		return fmt.Sprintf("Reason(%d)", int(r))
	}
	return reasonNames[r]
}

// MarshalText returns the reason's name, for JSON.
func (r Reason) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// Point is an input with both networks' outputs there, evaluated by
// nn.Network.Eval (float64) and enclosed with directed rounding,
// independently of the search that found it (CheckPoint).
type Point struct {
	// X is the input of f; XG that of g when it differs from X (omitted
	// otherwise).
	X  []float64 `json:"x"`
	XG []float64 `json:"x_g,omitempty"`
	// F and G are f(X) and g(XG); Diff is G - F.
	F    []float64 `json:"f"`
	G    []float64 `json:"g"`
	Diff []float64 `json:"difference"`
	// Measure is the difference as the tolerance measures it: max_k |Diff_k|
	// (spec.PerOutput over the compared outputs, spec.NormInf) or ||Diff||_2.
	Measure float64 `json:"measure"`
	// DiffLo and DiffHi enclose the exact difference g_k(XG) - f_k(X) of
	// the real-valued networks, with directed rounding; MeasureLo and
	// MeasureHi the exact measure (CheckPoint).
	DiffLo    []float64 `json:"difference_lo"`
	DiffHi    []float64 `json:"difference_hi"`
	MeasureLo float64   `json:"measure_lo"`
	MeasureHi float64   `json:"measure_hi"`
	// F32 and G32 are f(X) and g(XG) evaluated in float32
	// (nn.Network.EvalFloat32), as VNN-COMP evaluates a counterexample;
	// nil where a network cannot be evaluated so.
	F32 []float64 `json:"f_float32,omitempty"`
	G32 []float64 `json:"g_float32,omitempty"`
}

// Result is the outcome of Decide: the question (not encoded in JSON)
// and its answer.
type Result struct {
	// Inputs and Tolerance are the question decided. For DecideProperty,
	// Property is the property as read and Tolerance the symmetric form
	// that Decide answered for it; nil otherwise.
	Inputs    spec.Inputs    `json:"-"`
	Tolerance spec.Tolerance `json:"-"`
	Property  *spec.Property `json:"-"`

	Status Status `json:"verdict"`
	Reason Reason `json:"reason,omitempty"`
	// Bound is a certified upper bound on the measure of g(x) - f(x) over
	// the box (see Point.Measure): the largest bound of the leaves of the
	// search tree, which cover the box, whatever the status. With Holds,
	// Bound < eps for spec.NormInf and spec.Norm2 and each OutputBounds[k] < Eps[k].
	Bound float64 `json:"bound"`
	// OutputBounds[k] is a certified upper bound on |g_k(x) - f_k(x)| over
	// the box for each output compared (0 for the others; for spec.Norm2,
	// every output).
	OutputBounds []float64 `json:"output_bounds"`
	// Counterexample is set with Violated only: the input where the
	// tolerance fails, re-evaluated.
	Counterexample *Point `json:"counterexample,omitempty"`
	// Worst is the input with the largest measure found (for Violated,
	// the counterexample).
	Worst *Point `json:"worst"`
	// Nodes counts the boxes bounded.
	Nodes int `json:"nodes"`
	// Time is the wall-clock time of the decision.
	Time time.Duration `json:"-"`
	// Seconds is Time in seconds, for JSON.
	Seconds float64 `json:"seconds"`
}

// Progress is what the progress callback of Options receives after each
// batch of nodes.
type Progress struct {
	// Nodes counts the boxes bounded so far.
	Nodes int
	// Open is the fraction of the box's volume still unsettled (over the
	// coordinates of positive width).
	Open float64
	// Bound is the current certified bound of the measure (Result.Bound).
	Bound float64
	// Found is the largest measure attained so far.
	Found float64
}

// MarshalJSON encodes r with non-finite bounds (a box never bounded) as
// null.
func (r *Result) MarshalJSON() ([]byte, error) {
	type plain Result
	out := struct {
		*plain
		Bound        *float64   `json:"bound"`
		OutputBounds []*float64 `json:"output_bounds"`
	}{plain: (*plain)(r), Bound: finiteOrNil(r.Bound)}
	for _, b := range r.OutputBounds {
		out.OutputBounds = append(out.OutputBounds, finiteOrNil(b))
	}
	return json.Marshal(out)
}

// finiteOrNil returns &v, or nil when v is not finite.
func finiteOrNil(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
