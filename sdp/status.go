package sdp

import "fmt"

// Status tells how a solve ended. It is never an error: bad input is
// reported by Solve's error instead.
type Status int

// The ways a solve can end.
const (
	Unsolved         Status = iota // not solved yet
	Optimal                        // feasible and gap within tolerance
	NearOptimal                    // within 1000 times the tolerances
	PrimalInfeasible               // a certificate of primal infeasibility was found
	DualInfeasible                 // a certificate of dual infeasibility was found
	MaxIterations                  // stopped at Settings.MaxIter
	TimeLimit                      // stopped at Settings.TimeLimit
	NumericalTrouble               // the iteration broke down
	Cancelled                      // the context was cancelled
)

var statusNames = [...]string{
	"unsolved", "optimal", "near_optimal", "primal_infeasible", "dual_infeasible",
	"max_iterations", "time_limit", "numerical_trouble", "cancelled",
}

// String returns the status in snake case, as printed in JSON output.
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// conclusive reports whether the status answers the problem: a solution
// or a certificate of infeasibility.
func (s Status) conclusive() bool {
	return s == Optimal || s == NearOptimal || s == PrimalInfeasible || s == DualInfeasible
}
