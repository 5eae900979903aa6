package sdptest

import "github.com/nnbound/nnbound/sdp"

// Case is a test problem and what a correct solve of it gives.
type Case struct {
	Name    string
	Problem *sdp.Problem
	// Status is Optimal, PrimalInfeasible or DualInfeasible.
	Status sdp.Status
	// Optimum is the optimal value (c^T x = F_0 • Y) when Status is
	// Optimal.
	Optimum float64
}

// Cases returns the small problems of this package, each built afresh.
func Cases() []Case {
	return []Case{
		LP(),
		MaxEigen(6),
		ThetaC5(),
		RotatedLowRank(5),
		PrimalInfeasible(),
		DualInfeasible(),
		NoInterior(),
		NoInteriorFactors(),
	}
}
