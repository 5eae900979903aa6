package experiment

import (
	"math"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/verify"
	"github.com/nnbound/nnbound/vnncomp/equiv"
	"github.com/nnbound/nnbound/vnnlib"
)

// TestWriteVerdict checks the lines of a violated answer (the
// counterexample line), of an unknown one (the reason, no point) and the
// tolerance descriptions.
func TestWriteVerdict(t *testing.T) {
	p := &verify.Point{X: []float64{1}, F: []float64{1}, G: []float64{1.5}, Measure: 0.5}
	for _, tc := range []struct {
		name string
		r    verify.Result
		what string
		want string
	}{
		{"violated", verify.Result{Status: verify.Violated, Bound: 0.5, Worst: p, Counterexample: p, Nodes: 1, Seconds: 0.001},
			ToleranceText(verify.Tolerance{Norm: verify.NormInf, Eps: []float64{1e-3}}),
			"verdict   violated\n" +
				"bound     0.5        certified max of the difference over the box; norm inf; epsilon 0.001\n" +
				"found     0.5        counterexample, evaluated again at x = 1\n" +
				"          F(x) = 1, G(x) = 1.5\n" +
				"nodes     1 boxes bounded\n" +
				"time      0.001 s\n"},
		{"unknown", verify.Result{Status: verify.Unknown, Reason: verify.NodeLimit, Bound: 2, Nodes: 3, Seconds: 1},
			PairText(&vnnlib.Pair{Outputs: make([]vnnlib.OutputBound, 2)}, "p.vnnlib"),
			"verdict   unknown (" + verify.NodeLimit.String() + ")\n" +
				"bound     2          certified max of the difference over the box; the 2 output ranges of p.vnnlib, each about its centre\n" +
				"nodes     3 boxes bounded\n" +
				"time      1 s\n"},
		{"timeout before any bound", verify.Result{Status: verify.Unknown, Reason: verify.Timeout, Bound: math.Inf(1), Seconds: 1},
			"epsilon 1",
			"verdict   unknown (" + verify.Timeout.String() + ")\n" +
				"bound     none       no finite bound proved over the box; epsilon 1\n" +
				"nodes     0 boxes bounded\n" +
				"time      1 s\n"},
	} {
		var b strings.Builder
		if err := WriteVerdict(&b, &equiv.Answer{Result: &tc.r}, tc.what); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, b.String(), tc.want)
		}
	}
	if got := ToleranceText(verify.Tolerance{Norm: verify.PerOutput, Eps: []float64{1, 2}}); got != "norm per-output; epsilon [1 2]" {
		t.Errorf("ToleranceText = %q", got)
	}
}
