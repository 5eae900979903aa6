package suite

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/nnbound/nnbound/internal/benchdata"
)

// reference is what the shared SDPLIB folder says about one problem.
type reference struct {
	Name      string
	M, N      int
	Blocks    string  // optimal.tsv's block structure, e.g. "4x2,6"
	Status    string  // "opt", "primal_infeasible" or "dual_infeasible"
	Value     float64 // reference optimum (SDPA sign); NaN if none
	Source    string  // "consensus", "solvers" (the reference runs' range) or "sdplib"
	Tol       float64 // relative tolerance of the check
	IllPosed  bool    // CSDP or SDPA did not solve it cleanly
	Uncertain bool    // the reference is known to fewer digits than Tol
	Range     *span   // for Source "solvers": the reference solvers' objectives
	CSDPTime  float64 // CSDP's wall time in reference-times.tsv; NaN if absent
}

// Tolerances of the checks (see the package doc).
const (
	strictTol   = 1e-6
	illPosedTol = 1e-4
)

// readReferences reads optimal.tsv and reference-times.tsv of dir.
func readReferences(optimalPath, timesPath string) (map[string]*reference, error) {
	rows, err := benchdata.ReadTSV(optimalPath)
	if err != nil {
		return nil, err
	}
	refs := make(map[string]*reference, len(rows))
	for _, r := range rows {
		ref, err := newReference(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", optimalPath, err)
		}
		refs[ref.Name] = ref
	}
	times, err := benchdata.ReadTSV(timesPath)
	if err != nil {
		return nil, err
	}
	// A problem is ill-posed when CSDP or SDPA did not solve it, or
	// another problem of its family, cleanly: the rule is by
	// family (qap has no strictly feasible point: CSDP solves it, SDPA
	// does not; the hinf problems have none either, and CSDP or SDPA fail
	// on most of them, though both solve hinf1 and hinf4).
	unclean := map[string]bool{}
	spans := map[string]*span{}
	for _, r := range times {
		ref := refs[r["name"]]
		if ref == nil {
			continue
		}
		if s, ok := runSpan(r); ok {
			spans[ref.Name] = spans[ref.Name].union(s)
		}
		switch r["solver"] {
		case "csdp":
			unclean[ref.Name] = unclean[ref.Name] || r["status"] != "Success: SDP solved"
			ref.CSDPTime = parseFloatOr(r["wall_median_s"], math.NaN())
		case "sdpa":
			unclean[ref.Name] = unclean[ref.Name] || r["status"] != "pdOPT"
		}
	}
	uncleanFamily := map[string]bool{}
	for name, bad := range unclean {
		uncleanFamily[family(name)] = uncleanFamily[family(name)] || bad
	}
	for _, ref := range refs {
		ref.IllPosed = ref.Status == "opt" && uncleanFamily[family(ref.Name)]
		if ref.IllPosed && ref.Tol < illPosedTol {
			ref.Tol = illPosedTol
		}
		if s := spans[ref.Name]; ref.Source == "sdplib" && s != nil {
			ref.useSpan(*s)
		}
	}
	return refs, nil
}

// family returns the SDPLIB family of a problem: its name without the
// trailing digits and dashes (hinf13 -> hinf, gpp124-1 -> gpp).
func family(name string) string {
	return strings.TrimRight(name, "0123456789-")
}

// span is the range [Lo, Hi] of objectives the reference solvers report.
type span struct{ Lo, Hi float64 }

// union returns the smallest span holding s and t; s may be nil.
func (s *span) union(t span) *span {
	if s == nil {
		return &t
	}
	return &span{min(s.Lo, t.Lo), max(s.Hi, t.Hi)}
}

// runSpan returns the range of the primal and dual objectives of one row
// of reference-times.tsv, unless the run claims an infeasibility (its
// objectives then say nothing about the optimum) or lacks an objective.
func runSpan(r map[string]string) (span, bool) {
	st := r["status"]
	low := strings.ToLower(st)
	if strings.Contains(low, "infeasible") || strings.Contains(low, "unbounded") || // CSDP, DSDP
		strings.HasSuffix(st, "INF") || strings.HasSuffix(st, "UNBD") { // SDPA: pdINF, pUNBD, ...
		return span{}, false
	}
	p := parseFloatOr(r["pobj_sdpa_sign"], math.NaN())
	d := parseFloatOr(r["dobj_sdpa_sign"], math.NaN())
	if !finite(p) || !finite(d) {
		return span{}, false
	}
	return span{min(p, d), max(p, d)}, true
}

// useSpan makes the reference of a problem without a consensus the range
// of the reference solvers' objectives (Value is its midpoint): the error
// is then how far an objective lies outside it, and the check allows
// illPosedTol. SDPLIB's printed value is no reference there: hinf5's 363
// and hinf6's 449.0 lie outside every reference solver's range and
// outside their own printed precision.
func (ref *reference) useSpan(s span) {
	ref.Value, ref.Source, ref.Range = (s.Lo+s.Hi)/2, "solvers", &s
	ref.Tol = illPosedTol
}

// error is the relative error of o against the reference: outside the
// range for a range reference, relError otherwise.
func (ref *reference) error(o *outcome) float64 {
	if ref.Range == nil {
		return relError(o, ref.Value)
	}
	p, d := float64(o.PrimalObjective), float64(o.DualObjective)
	if !finite(p) || !finite(d) {
		return math.Inf(1)
	}
	lo, hi := ref.Range.Lo, ref.Range.Hi
	out := max(lo-p, p-hi, lo-d, d-hi, 0)
	return out / max(1, math.Abs(ref.Value))
}

// newReference decodes one row of optimal.tsv.
func newReference(r map[string]string) (*reference, error) {
	ref := &reference{Name: r["name"], Blocks: r["blocks"], Status: r["status"],
		Value: math.NaN(), Tol: strictTol, CSDPTime: math.NaN()}
	var err error
	if ref.M, err = strconv.Atoi(r["m"]); err != nil {
		return nil, fmt.Errorf("%s: bad m %q", ref.Name, r["m"])
	}
	if ref.N, err = strconv.Atoi(r["n_total"]); err != nil {
		return nil, fmt.Errorf("%s: bad n_total %q", ref.Name, r["n_total"])
	}
	if ref.Status != "opt" {
		return ref, nil
	}
	if v, err := strconv.ParseFloat(r["measured_consensus"], 64); err == nil {
		ref.Value, ref.Source = v, "consensus"
		if spread := parseFloatOr(r["measured_spread_rel"], 0); spread > illPosedTol {
			ref.Uncertain, ref.Tol = true, spread
		}
		return ref, nil
	}
	s := r["optimal_obj_sdpa_sign"]
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("%s: no consensus and bad SDPLIB value %q", ref.Name, s)
	}
	ref.Value, ref.Source, ref.Uncertain = v, "sdplib", true
	ref.Tol = max(illPosedTol, halfUlp(s)/max(1, math.Abs(v)))
	return ref, nil
}

// halfUlp returns half a unit in the last printed digit of the decimal
// number s ("3.63e+02" -> 0.5).
func halfUlp(s string) float64 {
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		exp, _ = strconv.Atoi(s[i+1:])
	}
	decimals := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		decimals = len(mant) - i - 1
	}
	return 0.5 * math.Pow(10, float64(exp-decimals))
}

func parseFloatOr(s string, def float64) float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return def
	}
	return v
}
