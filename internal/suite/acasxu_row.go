package suite

import (
	"fmt"
	"math"
	"strings"

	"github.com/nnbound/nnbound/internal/benchdata"
	"github.com/nnbound/nnbound/report"
)

// acasRow is the result of one instance.
type acasRow struct {
	Prop   string `json:"prop"`
	Net    string `json:"net"`
	Target int    `json:"target"`
	// Status is "certified" when Bound is a certified bound, otherwise
	// why there is none (Reason says more).
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Bound is the certified bound on |f'_t - f_t| over the box, produced
	// by Method; Seconds is the time of the methods run for it, and
	// CPUSeconds the process's CPU time (user and system) from the start
	// of bound propagation (run for its diagnostics with every method) to
	// the end of the SDP: on a machine shared with other work, the
	// steadier of the two.
	Bound      report.Number `json:"bound"`
	Method     string        `json:"method"`
	Seconds    float64       `json:"seconds"`
	CPUSeconds float64       `json:"cpu_seconds"`

	Interval *ACASIntervalRes `json:"interval,omitempty"`
	SDP      *acasSDPRes      `json:"sdp,omitempty"`

	NeuroDiff    report.Number `json:"neurodiff_firstpass"`
	ReluDiffPlus report.Number `json:"reludiffplus_firstpass"`
	// Ratio is Bound / NeuroDiff.
	Ratio report.Number `json:"ratio_neurodiff"`
	// Found is the largest |f'_t - f_t| our searches attained (the
	// search's and the certificate's), FoundTSV the data's.
	Found         report.Number `json:"found"`
	FoundTSV      report.Number `json:"found_tsv"`
	SearchSeconds float64       `json:"search_seconds"`
	// Sound is soundOK, or which attained difference exceeds Bound.
	Sound string `json:"soundness"`

	// PeakRSS is the process's peak resident set size while bounding, in
	// MiB (since the process started if RSSReset is false).
	PeakRSS  report.Number `json:"peak_rss_mib"`
	RSSReset bool          `json:"peak_rss_reset"`
	// Load is the machine's one-minute load average when the instance
	// started.
	Load report.Number `json:"load_average"`

	// Unstable1 and Unstable2 count the neurons per layer of f and f'
	// whose pre-activation bounds straddle 0; DiffMax is the largest
	// bound on |phi'(xi') - phi(xi)| per layer.
	Unstable1 []int           `json:"unstable_f"`
	Unstable2 []int           `json:"unstable_fprime"`
	DiffMax   []report.Number `json:"diff_max"`
}

// ACASIntervalRes is the bound-propagation result of an instance.
type ACASIntervalRes struct {
	// Lo, Hi enclose f'_t - f_t; Bound = max(-Lo, Hi).
	Lo      float64 `json:"lo"`
	Hi      float64 `json:"hi"`
	Bound   float64 `json:"bound"`
	Seconds float64 `json:"seconds"`
}

// acasSDPRes is the certificate's result on an instance.
type acasSDPRes struct {
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// SolverStatus is how the root SDP's solve ended; when it failed, a
	// certified Bound is the certificate's own output enclosure.
	SolverStatus  string        `json:"solver_status"`
	Bound         report.Number `json:"bound"`
	Seconds       float64       `json:"seconds"`
	Size          int           `json:"size"`
	Variables     int           `json:"variables"`
	Solves        int           `json:"solves"`
	Iterations    int           `json:"iterations"`
	SolverSeconds float64       `json:"solver_seconds"`
	Pieces        int           `json:"pieces"`

	found float64 // the certificate's observed error
}

// The soundness column of a bound above every attained difference, and of
// a row without a bound.
const (
	soundOK   = "ok"
	soundNone = "—"
)

// newACASRow returns the row of inst with nothing measured yet.
func newACASRow(inst *benchdata.ACASInstance) *acasRow {
	nan := report.Number(math.NaN())
	return &acasRow{Prop: inst.Prop, Net: inst.Net, Target: inst.Target, Status: "none", Bound: nan,
		NeuroDiff: report.Number(inst.NeuroDiff), ReluDiffPlus: report.Number(inst.ReluDiffPlus), Ratio: nan,
		Found: nan, FoundTSV: report.Number(inst.FoundTSV), PeakRSS: nan, Load: nan, Sound: soundNone}
}

// take makes bound, certified by method, the row's bound if it is
// finite and smaller than the current one.
func (r *acasRow) take(bound float64, method string) {
	if !finite(bound) || (r.Method != "" && bound >= float64(r.Bound)) {
		return
	}
	r.Bound, r.Method, r.Status, r.Reason = report.Number(bound), method, "certified", ""
}

// check fills Ratio and Sound: the bound must be at least every attained
// difference. Ours is evaluated in float64 on the same problem, so it may
// exceed the exact value only by rounding (allowed: 1e-12 absolute; the
// outputs are of order 1). The data's was found with float32-rounded
// weights and the float32 box; at sampled points that changes f'_t - f_t by
// under 1e-7, far below the gap between any bound and what is attained, so
// it is compared without allowance.
func (r *acasRow) check() {
	b := float64(r.Bound)
	if !finite(b) {
		r.Sound = soundNone
		return
	}
	if nd := float64(r.NeuroDiff); finite(nd) && nd > 0 {
		r.Ratio = report.Number(b / nd)
	}
	var bad []string
	if f := float64(r.Found); finite(f) && f > b+1e-12 {
		bad = append(bad, fmt.Sprintf("FAIL: found %.6g > bound %.6g", f, b))
	}
	if f := float64(r.FoundTSV); finite(f) && f > b {
		bad = append(bad, fmt.Sprintf("FAIL: data's found %.6g > bound %.6g", f, b))
	}
	r.Sound = soundOK
	if len(bad) > 0 {
		r.Sound = strings.Join(bad, "; ")
	}
}

// violated reports whether an attained difference exceeds the bound.
func (r *acasRow) violated() bool { return strings.HasPrefix(r.Sound, "FAIL") }

// progress is the stderr line of a finished instance.
func (r *acasRow) progress() string {
	s := fmt.Sprintf("property %s net %s: bound %s by %s in %s s (CPU %s s)", r.Prop, r.Net, num4(r.Bound), r.Method,
		report.Float(r.Seconds, 3), report.Float(r.CPUSeconds, 3))
	if r.Status != "certified" {
		s = fmt.Sprintf("property %s net %s: no bound in %s s (%s: %s)", r.Prop, r.Net, report.Float(r.Seconds, 3), r.Status, r.Reason)
	}
	if r.SDP != nil && r.Method != ACASSDP.String() && r.Status == "certified" {
		s += fmt.Sprintf(" (sdp: %s %s)", r.SDP.Status, num4(r.SDP.Bound))
	}
	return s + fmt.Sprintf(", NeuroDiff %s ratio %s, found %s (data %s), sound %s, load %s, %s MiB",
		num4(r.NeuroDiff), num4(r.Ratio), num4(r.Found), num4(r.FoundTSV), r.Sound,
		numSig(r.Load, 3), numSig(r.PeakRSS, 3))
}
