package sdp

import (
	"fmt"
	"io"
	"math"
	"time"
)

// Settings controls a solve. Use DefaultSettings and change what you need;
// a nil *Settings passed to Solve means the defaults.
type Settings struct {
	// GapTol is the relative duality gap
	//   |c^T x - F_0 • Y| / max(1, (|c^T x| + |F_0 • Y|)/2)
	// below which a feasible pair is optimal. Default 1e-8.
	GapTol float64
	// FeasTol is the relative primal and dual infeasibility below which a
	// point counts as feasible. Default 1e-8.
	FeasTol float64
	// MaxIter is the largest number of interior-point iterations, the
	// steps of the final barrier polish included. Default 300: the
	// primal-dual phase rarely needs 40, the polish of an ill-posed problem
	// up to a few hundred.
	MaxIter int
	// DualStart, when positive, is the starting dual matrix's scale:
	// Y = DualStart I instead of CSDP's Y = lamD I (see initialPoint),
	// whose factor n, the total order of the blocks, suits problems whose
	// dual solution grows with n. A caller that knows the scale of a solution
	// Y sets it: an SDP whose Y is a second-moment matrix with a unit
	// entry (Y_11 = 1) starts better from I than from 10^4 I on an LMI of
	// order a few hundred. Default 0: CSDP's rule.
	DualStart float64
	// TimeLimit stops the solve after this long; 0 means no limit.
	TimeLimit time.Duration
	// Log, when not nil, receives a header and one line per iteration with
	// the fixed columns iter, pobj (c^T x), dobj (F_0 • Y), gap, pinf,
	// dinf (the relative measures of Result), mu (X • Y / n) and step (the
	// primal/dual step lengths that led to the iterate), then a status line.
	Log io.Writer
}

// DefaultSettings returns the documented defaults.
func DefaultSettings() Settings {
	return Settings{GapTol: 1e-8, FeasTol: 1e-8, MaxIter: 300}
}

// Validate reports the first setting that is out of range.
func (s *Settings) Validate() error {
	switch {
	case !(s.GapTol > 0 && s.GapTol < 1):
		return fmt.Errorf("sdp: Settings.GapTol = %v, want in (0, 1): %w", s.GapTol, ErrSettings)
	case !(s.FeasTol > 0 && s.FeasTol < 1):
		return fmt.Errorf("sdp: Settings.FeasTol = %v, want in (0, 1): %w", s.FeasTol, ErrSettings)
	case s.MaxIter <= 0:
		return fmt.Errorf("sdp: Settings.MaxIter = %d, want > 0: %w", s.MaxIter, ErrSettings)
	case !(s.DualStart >= 0) || math.IsInf(s.DualStart, 1):
		return fmt.Errorf("sdp: Settings.DualStart = %v, want finite and >= 0: %w", s.DualStart, ErrSettings)
	case s.TimeLimit < 0:
		return fmt.Errorf("sdp: Settings.TimeLimit = %v, want >= 0: %w", s.TimeLimit, ErrSettings)
	}
	return nil
}
