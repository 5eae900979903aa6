package suite

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/report"
)

// TestParsers reads outputs captured from CSDP 6.2, SDPA 7.3 and DSDP 5.8
// on three tiny problems of cmd/nnbound/testdata/solve: maxeig (optimum 3),
// infeasible (primal infeasible) and unbounded (dual infeasible).
func TestParsers(t *testing.T) {
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	tests := []struct {
		name   string
		got    outcome
		status string
		obj    float64 // NaN: not checked
	}{
		{"csdp maxeig", parseCSDP(read("csdp-maxeig.txt"), "", 0), "optimal", 3},
		{"csdp infeasible", parseCSDP(read("csdp-infeasible.txt"), "", 2), "primal_infeasible", math.NaN()},
		{"csdp unbounded", parseCSDP(read("csdp-unbounded.txt"), "", 1), "dual_infeasible", math.NaN()},
		{"csdp crash", parseCSDP(nil, "", 139), "failed", math.NaN()},
		{"sdpa maxeig", parseSDPA(nil, filepath.Join("testdata", "sdpa-maxeig.out"), 0), "optimal", 3},
		{"sdpa infeasible", parseSDPA(nil, filepath.Join("testdata", "sdpa-infeasible.out"), 0), "primal_infeasible", math.NaN()},
		{"sdpa unbounded", parseSDPA(nil, filepath.Join("testdata", "sdpa-unbounded.out"), 0), "dual_infeasible", math.NaN()},
		{"sdpa no file", parseSDPA(nil, filepath.Join("testdata", "missing.out"), 1), "error", math.NaN()},
		{"dsdp maxeig", parseDSDP(read("dsdp5-maxeig.txt"), "", 0), "optimal", 3},
		{"dsdp infeasible", parseDSDP(read("dsdp5-infeasible.txt"), "", 0), "primal_infeasible", math.NaN()},
		{"dsdp nothing", parseDSDP([]byte("garbage\n"), "", 1), "error", math.NaN()},
		{"nnbound", parseNnbound([]byte(`{"status":"optimal","primal_objective":3,"dual_objective":2.9999999,"iterations":7}`), "", 0), "optimal", 3},
		{"nnbound null", parseNnbound([]byte(`{"status":"primal_infeasible","primal_objective":null}`), "", 1), "primal_infeasible", math.NaN()},
		{"nnbound error", parseNnbound([]byte("nnbound: x.dat-s:3: bad\n"), "", 1), "error", math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got.Status != tt.status {
				t.Errorf("status %q (raw %q), want %q", tt.got.Status, tt.got.Raw, tt.status)
			}
			if !math.IsNaN(tt.obj) {
				if e := relError(&tt.got, tt.obj); !(e < 1e-6) {
					t.Errorf("objectives %v, %v; want %v", tt.got.PrimalObjective, tt.got.DualObjective, tt.obj)
				}
			}
			if tt.status == "error" && tt.got.Err == "" {
				t.Errorf("no error message")
			}
		})
	}
}

func TestCheck(t *testing.T) {
	strict := &reference{Status: "opt", Value: 100, Tol: strictTol}
	ill := &reference{Status: "opt", Value: 100, Tol: illPosedTol, IllPosed: true}
	vague := &reference{Status: "opt", Value: 363, Tol: 1.4e-3, Uncertain: true}
	infp := &reference{Status: "primal_infeasible", Value: math.NaN()}
	res := func(status string, p, d float64) *outcome {
		return &outcome{Status: status, PrimalObjective: report.Number(p), DualObjective: report.Number(d)}
	}
	tests := []struct {
		name string
		ref  *reference
		o    *outcome
		want string
	}{
		{"no reference", nil, res("optimal", 1, 1), "—"},
		{"strict ok", strict, res("optimal", 100.00005, 99.99995), "ok"},
		{"strict too far", strict, res("optimal", 100.0002, 100), "FAIL"},
		{"strict near optimal", strict, res("near_optimal", 100, 100), "FAIL"},
		{"ill-posed near optimal", ill, res("near_optimal", 100.005, 100), "ok~"},
		{"ill-posed too far", ill, res("near_optimal", 100.02, 100), "FAIL"},
		{"ill-posed solved exactly", ill, res("optimal", 100, 100), "ok"},
		{"vague within digits", vague, res("near_optimal", 362.6, 362.9), "ok?"},
		{"vague too far", vague, res("optimal", 365, 365), "FAIL"},
		{"missing objective", strict, res("optimal", 100, math.NaN()), "FAIL"},
		{"infeasible ok", infp, res("primal_infeasible", math.Inf(1), math.NaN()), "ok"},
		{"infeasible swapped", infp, res("dual_infeasible", 0, 0), "FAIL"},
		{"run failed", strict, &outcome{Status: "timeout", Err: "timed out"}, "FAIL"},
	}
	for _, tt := range tests {
		if got := check(tt.ref, tt.o); got != tt.want {
			t.Errorf("%s: check = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestRunSpan(t *testing.T) {
	row := func(status, p, d string) map[string]string {
		return map[string]string{"status": status, "pobj_sdpa_sign": p, "dobj_sdpa_sign": d}
	}
	for _, tt := range []struct {
		name   string
		row    map[string]string
		ok     bool
		lo, hi float64
	}{
		{"csdp partial", row("Partial Success: SDP solved with reduced accuracy [stuck at edge of primal feasibility]", "362.43945", "362.30125"), true, 362.30125, 362.43945},
		{"dsdp stopped", row("DSDP Terminated Due to Indefinite Schur Complement", "362.211032", "362.215186"), true, 362.211032, 362.215186},
		{"sdpa pdINF", row("pdINF", "47.28", "48.79"), false, 0, 0},
		{"sdpa pUNBD", row("pUNBD", "1", "2"), false, 0, 0},
		{"csdp infeasible", row("Success: SDP is primal infeasible", "1", "2"), false, 0, 0},
		{"no objective", row("pdOPT", "", "2"), false, 0, 0},
	} {
		s, ok := runSpan(tt.row)
		if ok != tt.ok || ok && (s.Lo != tt.lo || s.Hi != tt.hi) {
			t.Errorf("%s: runSpan = %+v, %v; want [%v, %v], %v", tt.name, s, ok, tt.lo, tt.hi, tt.ok)
		}
	}
	var u *span
	u = u.union(span{2, 3}).union(span{1, 2.5})
	if *u != (span{1, 3}) {
		t.Errorf("union = %+v, want {1 3}", *u)
	}
	ref := &reference{Status: "opt", Value: 363, Source: "sdplib", Uncertain: true}
	ref.useSpan(*u)
	res := func(p, d float64) *outcome {
		return &outcome{Status: "near_optimal", PrimalObjective: report.Number(p), DualObjective: report.Number(d)}
	}
	for _, tt := range []struct {
		name string
		o    *outcome
		want string
	}{
		{"at the ends", res(1, 3), "ok?"},
		{"within 1e-4 beyond", res(0.99985, 3.0001), "ok?"},
		{"1e-2 beyond", res(2, 3.02), "FAIL"},
		{"optimal inside", &outcome{Status: "optimal", PrimalObjective: 2, DualObjective: 2}, "ok?"},
		{"not solved", &outcome{Status: "numerical_trouble", PrimalObjective: 2, DualObjective: 2}, "FAIL"},
	} {
		if got := check(ref, tt.o); got != tt.want {
			t.Errorf("%s: check = %q, want %q (error %g)", tt.name, got, tt.want, ref.error(tt.o))
		}
	}
}

func TestHalfUlpAndMedian(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want float64
	}{{"3.63e+02", 0.5}, {"2e-1", 0.05}, {"1.0967e+01", 0.0005}, {"-4.49435e+01", 0.00005}, {"23", 0.5}} {
		if got := halfUlp(tt.s); math.Abs(got-tt.want) > 1e-12*tt.want {
			t.Errorf("halfUlp(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median odd = %v", m)
	}
	if m := median([]float64{4, 1, 2, 3}); m != 2.5 {
		t.Errorf("median even = %v", m)
	}
	if m := median(nil); !math.IsNaN(m) {
		t.Errorf("median empty = %v", m)
	}
}

// TestReferences reads the shared optimal.tsv and reference-times.tsv.
func TestReferences(t *testing.T) {
	dir := sharedtest.Path(t, "data", "sdplib")
	refs, err := readReferences(filepath.Join(dir, "optimal.tsv"), filepath.Join(dir, "reference-times.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 74 {
		t.Errorf("%d references, want 74", len(refs))
	}
	theta1 := refs["theta1"]
	if theta1 == nil || math.Abs(theta1.Value-23) > 1e-6 || theta1.Tol != strictTol || theta1.IllPosed || !(theta1.CSDPTime > 0) {
		t.Errorf("theta1: %+v", theta1)
	}
	if r := refs["infd1"]; r == nil || r.Status != "dual_infeasible" {
		t.Errorf("infd1: %+v", r)
	}
	// hinf5 has no consensus: its reference is the range of the reference
	// solvers' objectives, DSDP's 362.211 to SDPA's 362.930.
	if r := refs["hinf5"]; r == nil || r.Source != "solvers" || !r.Uncertain || !r.IllPosed ||
		r.Range == nil || r.Range.Lo != 362.211032 || r.Range.Hi != 362.9296158 || r.Tol != illPosedTol {
		t.Errorf("hinf5: %+v", r)
	}
	// qap6: CSDP solves it, SDPA does not (no strictly feasible point).
	if r := refs["qap6"]; r == nil || !r.IllPosed {
		t.Errorf("qap6 not ill-posed: %+v", r)
	}
	if r := refs["hinf12"]; r == nil || !r.Uncertain || r.Tol < 1 {
		t.Errorf("hinf12: %+v", r)
	}
	// hinf1: CSDP and SDPA solve it cleanly, but the hinf family is
	// ill-posed (they fail on most of its problems).
	if r := refs["hinf1"]; r == nil || !r.IllPosed || r.Tol != illPosedTol {
		t.Errorf("hinf1 not ill-posed: %+v", r)
	}
	if r := refs["theta1"]; r == nil || r.IllPosed {
		t.Errorf("theta1 ill-posed: %+v", r)
	}
}

func TestFamily(t *testing.T) {
	for name, want := range map[string]string{"hinf13": "hinf", "gpp124-1": "gpp", "qap5": "qap", "maxG11": "maxG", "theta1": "theta"} {
		if got := family(name); got != want {
			t.Errorf("family(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestWriteMarkdown(t *testing.T) {
	solvers := []*solver{{Name: "nnbound"}, {Name: "csdp"}, {Name: "sdpa"}}
	rows := []*problemRow{
		{Name: "a", M: 3, N: 4, Check: "ok", Objective: num(1.5), Error: num(2e-9), Ratio: num(1.25),
			csdpTime: 0.4, Results: map[string]*outcome{
				"nnbound": {Status: "optimal", PrimalObjective: 1.5, DualObjective: 1.5, Seconds: 0.5},
				"csdp":    {Status: "optimal", Seconds: 0.4},
				"sdpa":    {Status: "timeout", Err: "timed out"},
			}, ratio: 1.25},
		{Name: "b", M: 1, N: 2, Check: "FAIL", CSDPRef: true, Ratio: num(3), csdpTime: 0.1, ratio: 3,
			Results: map[string]*outcome{
				"nnbound": {Status: "max_iterations", PrimalObjective: nan, DualObjective: nan, Seconds: 0.3},
			}},
	}
	var buf bytes.Buffer
	if err := writeMarkdown(&buf, rows, solvers, summarise(rows, solvers)); err != nil {
		t.Fatal(err)
	}
	want := `| problem | m | n | status | objective | rel. error | check | nnbound s | csdp s | ratio | sdpa s |
|---|---|---|---|---|---|---|---|---|---|---|
| a | 3 | 4 | optimal | 1.5 | 2.0e-09 | ok | 0.500 | 0.400 | 1.25 | timeout |
| b | 1 | 2 | max_iterations | — | — | FAIL | 0.300 | 0.100* | 3.00 | — |

\* csdp not run: its time from reference-times.tsv.

Median ratio nnbound/csdp: **2.12**; worst: **3.00** (b); over 5x: 0.
Checks passed: 1 of 2; failed: b.
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}
