package main

import (
	"fmt"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/spec"
)

// What a certificate bounds depends on its options: the 2-norm of the
// output difference d = f1(x1) - f2(x2) (the paper's), its inf-norm
// max_k |d_k| (--norm inf), or one output's |d_K| (--output K, a one-hot
// Options.C; any other C gives |c^T d|). certify.Certificate.Quantity
// names it; the functions below adapt the name to the figures and the
// gammas (certify.Certificate.Measure evaluates it).

// squareName returns the left-hand side of the gammas' inequality of c:
// the square of what they bound. For the inf-norm over several outputs,
// the gammas are those of the output with the largest bound.
func squareName(c *certify.Certificate) string {
	if c.C == nil && c.Norm == spec.NormInf && len(c.Outputs) > 1 {
		k := c.WorstOutput()
		return fmt.Sprintf("|f1_%d - f2_%d|^2", k, k)
	}
	return experiment.AxisName(c) + "^2"
}
