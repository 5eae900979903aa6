package equiv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/vnncomp"
)

// acasEquivBox is the ACAS Xu box of the equivalence benchmark.
var acasEquivBox = [2][5]float64{{0.6, -0.5, -0.5, 0.45, -0.45}, {0.679857769, 0.5, 0.5, 0.5, -0.45}}

// monotonicACAS is a monotonicity property of VNN-COMP's monotonic_acasxu
// template on the box [lo, hi] of ACAS Xu's five inputs: g equal to f,
// X_f[0] <= X_g[0], the other inputs equal, and the unsafe output
// Y_g[k] rel Y_f[k].
func monotonicACAS(lo, hi [5]float64, k int, rel string) string {
	var b strings.Builder
	b.WriteString(`(vnnlib-version <2.0>)
(declare-network f (declare-input X_f real [5]) (declare-output Y_f real [5]))
(declare-network g (equal-to f) (declare-input X_g real [5]) (declare-output Y_g real [5]))
`)
	for i := range 5 {
		fmt.Fprintf(&b, "(assert (and (<= X_f[%d] %v) (>= X_f[%d] %v)))\n", i, hi[i], i, lo[i])
	}
	fmt.Fprintf(&b, "(assert (and (<= X_g[0] %v) (>= X_g[0] %v)))\n", hi[0], lo[0])
	b.WriteString("(assert (<= X_f[0] X_g[0]))\n")
	for i := 1; i < 5; i++ {
		fmt.Fprintf(&b, "(assert (== X_f[%d] X_g[%d]))\n", i, i)
	}
	fmt.Fprintf(&b, "(assert (%s Y_g[%d] Y_f[%d]))\n", rel, k, k)
	return b.String()
}

// TestMonotonicACASXu decides monotonicity instances on ACAS Xu networks
// of the shared folder within the competition's 100 s, re-checking each
// counterexample (Decider's witness is checked by CheckRelational).
func TestMonotonicACASXu(t *testing.T) {
	nets := sharedtest.Path(t, "benchmarks", "veriprune", "onnx", "nets")
	dir := t.TempDir()
	cases := []struct {
		net string
		k   int
		rel string
	}{{"1_1", 3, "<"}, {"1_1", 0, ">"}, {"2_3", 3, "<"}}
	for i, c := range cases {
		spec := filepath.Join(dir, fmt.Sprintf("m%d.vnnlib", i))
		if err := os.WriteFile(spec, []byte(monotonicACAS(acasEquivBox[0], acasEquivBox[1], c.k, c.rel)), 0o644); err != nil {
			t.Fatal(err)
		}
		in := vnncomp.Instance{Index: i, Spec: spec, Timeout: 100 * time.Second,
			Networks: []vnncomp.NamedModel{{Name: "f", Path: filepath.Join(nets, "ACASXU_run2a_"+c.net+"_batch_2000.onnx")}}}
		ctx, cancel := context.WithTimeout(context.Background(), in.Timeout)
		start := time.Now()
		o := Decider(DefaultOptions())(ctx, in)
		cancel()
		took := time.Since(start)
		t.Logf("net %s, unsafe Y_g[%d] %s Y_f[%d]: %s in %v", c.net, c.k, c.rel, c.k, o.Result, took)
		if o.Result != vnncomp.Sat && o.Result != vnncomp.Unsat {
			t.Errorf("net %s output %d: %s (%v) in %v, want decided within 100 s", c.net, c.k, o.Result, o.Err, took)
		}
		if o.Result == vnncomp.Sat {
			if err := o.Witness.Check(); err != nil {
				t.Error(err)
			}
		}
	}
}
