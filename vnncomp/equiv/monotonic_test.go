package equiv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/vnncomp"
)

// monotonicACAS is a monotonicity property of VNN-COMP's monotonic_acasxu
// template on the ACAS Xu box of the equivalence benchmark: g equal to f,
// X_f[0] <= X_g[0], the other inputs equal, and the unsafe output
// Y_g[k] rel Y_f[k].
func monotonicACAS(k int, rel string) string {
	return fmt.Sprintf(`(vnnlib-version <2.0>)
(declare-network f (declare-input X_f real [5]) (declare-output Y_f real [5]))
(declare-network g (equal-to f) (declare-input X_g real [5]) (declare-output Y_g real [5]))
(assert (and (<= X_f[0] 0.679857769) (>= X_f[0] 0.6)))
(assert (and (<= X_f[1] 0.5) (>= X_f[1] -0.5)))
(assert (and (<= X_f[2] 0.5) (>= X_f[2] -0.5)))
(assert (and (<= X_f[3] 0.5) (>= X_f[3] 0.45)))
(assert (and (<= X_f[4] -0.45) (>= X_f[4] -0.45)))
(assert (and (<= X_g[0] 0.679857769) (>= X_g[0] 0.6)))
(assert (<= X_f[0] X_g[0]))
(assert (== X_f[1] X_g[1]))
(assert (== X_f[2] X_g[2]))
(assert (== X_f[3] X_g[3]))
(assert (== X_f[4] X_g[4]))
(assert (%s Y_g[%d] Y_f[%d]))
`, rel, k, k)
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
		if err := os.WriteFile(spec, []byte(monotonicACAS(c.k, c.rel)), 0o644); err != nil {
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
