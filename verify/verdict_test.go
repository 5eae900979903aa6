package verify

import (
	"math"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/spec"
)

// TestWriteText checks the lines of a violated answer (the
// counterexample line), of an unknown one (the reason, no point) and the
// descriptions of the question.
func TestWriteText(t *testing.T) {
	p := &Point{X: []float64{1}, F: []float64{1}, G: []float64{1.5}, Measure: 0.5}
	for _, tc := range []struct {
		name string
		r    Result
		want string
	}{
		{"violated", Result{Tolerance: spec.Tolerance{Norm: spec.NormInf, Eps: []float64{1e-3}},
			Status: Violated, Bound: 0.5, Worst: p, Counterexample: p, Nodes: 1, Seconds: 0.001},
			"verdict   violated\n" +
				"bound     0.5        certified max of the difference over the box; norm inf; epsilon 0.001\n" +
				"found     0.5        counterexample, evaluated again at x = 1\n" +
				"          F(x) = 1, G(x) = 1.5\n" +
				"nodes     1 boxes bounded\n" +
				"time      0.001 s\n"},
		{"unknown", Result{Property: &spec.Property{Outputs: make([]spec.OutputBound, 2), Source: "p.vnnlib"},
			Status: Unknown, Reason: NodeLimit, Bound: 2, Nodes: 3, Seconds: 1},
			"verdict   unknown (" + NodeLimit.String() + ")\n" +
				"bound     2          certified max of the difference over the box; the 2 output ranges of p.vnnlib, each about its centre\n" +
				"nodes     3 boxes bounded\n" +
				"time      1 s\n"},
		{"timeout before any bound", Result{Tolerance: spec.Tolerance{Norm: spec.Norm2, Eps: []float64{1}},
			Status: Unknown, Reason: Timeout, Bound: math.Inf(1), Seconds: 1},
			"verdict   unknown (" + Timeout.String() + ")\n" +
				"bound     none       no finite bound proved over the box; norm 2; epsilon 1\n" +
				"nodes     0 boxes bounded\n" +
				"time      1 s\n"},
	} {
		var b strings.Builder
		if err := (&Answer{Result: &tc.r}).WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, b.String(), tc.want)
		}
	}
	if got := (spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{1, 2}}).String(); got != "norm per-output; epsilon [1 2]" {
		t.Errorf("String = %q", got)
	}
}
