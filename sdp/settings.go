package sdp

import (
	"fmt"
	"io"
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
	// MaxIter is the largest number of interior-point iterations. Default 100.
	MaxIter int
	// TimeLimit stops the solve after this long; 0 means no limit.
	TimeLimit time.Duration
	// Log, when not nil, receives one line per iteration.
	Log io.Writer
}

// DefaultSettings returns the documented defaults.
func DefaultSettings() Settings {
	return Settings{GapTol: 1e-8, FeasTol: 1e-8, MaxIter: 100}
}

// Validate reports the first setting that is out of range.
func (s *Settings) Validate() error {
	switch {
	case !(s.GapTol > 0 && s.GapTol < 1):
		return fmt.Errorf("sdp: Settings.GapTol = %v, want in (0, 1)", s.GapTol)
	case !(s.FeasTol > 0 && s.FeasTol < 1):
		return fmt.Errorf("sdp: Settings.FeasTol = %v, want in (0, 1)", s.FeasTol)
	case s.MaxIter <= 0:
		return fmt.Errorf("sdp: Settings.MaxIter = %d, want > 0", s.MaxIter)
	case s.TimeLimit < 0:
		return fmt.Errorf("sdp: Settings.TimeLimit = %v, want >= 0", s.TimeLimit)
	}
	return nil
}
