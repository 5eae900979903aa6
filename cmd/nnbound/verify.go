package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/internal/duration"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
	"github.com/nnbound/nnbound/verify"
	"github.com/nnbound/nnbound/vnncomp/equiv"
	"github.com/nnbound/nnbound/vnnlib"
)

// verifyFlags are the flags of nnbound verify.
type verifyFlags struct {
	model    modelFlags
	input    inputFlags
	eps      []float64
	norm     string
	output   int
	timeout  time.Duration
	maxNodes int
	json     bool
	noAlign  bool
	verbose  bool
}

// verifyTimeout is the default --timeout of verify: a branch and bound
// that cannot settle (identical networks and a denormal epsilon) would
// otherwise run, and grow, until killed.
const verifyTimeout = 5 * time.Minute

func newVerifyCmd() *cobra.Command {
	var f verifyFlags
	cmd := &cobra.Command{
		Use:   "verify F G --epsilon E",
		Short: "Decide whether G stays within epsilon of F on the input box",
		Long: `Decide epsilon-equivalence of two networks on the same input: is
|G_k(x) - F_k(x)| < E_k for every output k and every x of the box (the
VNN-LIB form; --norm inf or 2 compares max_k |G_k - F_k| or ||G - F||_2
with E instead)? The answer is holds (proved by branch and bound over the
box, with bound propagation on every piece), violated (with an input
where the difference exceeds E, evaluated again), or unknown (the time
limit, --timeout, 5 minutes unless told, or the node limit came first).

--vnnlib FILE takes the box from a VNN-LIB 1 property, or the whole
question from a VNN-LIB 2.0 two-network property: its box, X_f == X_g,
and its bounds Lo_k <= Y_g[k] - Y_f[k] <= Hi_k, which replace --epsilon
(an asymmetric range is decided about its centre; a range open on one
side, or independent inputs, is an error).

Before deciding, g's hidden neurons are matched to f's and g permuted
accordingly (which keeps g's function; --no-align turns it off); the
alignment is printed, and is "alignment" in --json.

Exit status: 0 holds, 1 violated, unknown or an error, 2 usage error.`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(cmd, args, &f)
		},
	}
	fs := cmd.Flags()
	f.model.register(fs)
	f.input.register(fs)
	fs.Var(&positives{p: &f.eps}, "epsilon", "tolerance `E`: one for all outputs, or one per output (per-output norm)")
	fs.StringVar(&f.norm, "norm", verify.PerOutput.String(), "how the difference is compared: per-output, inf or 2")
	fs.IntVar(&f.output, "output", -1, "compare output `K` only (0-based; per-output norm; -1: all)")
	f.timeout = verifyTimeout
	duration.Var(fs, &f.timeout, "timeout", "stop with unknown after this long (0: no limit)")
	fs.IntVar(&f.maxNodes, "max-nodes", 0, "stop with unknown after bounding this many boxes (0: no limit)")
	fs.BoolVar(&f.noAlign, "no-align", false, "do not match g's hidden neurons to f's before deciding")
	fs.BoolVar(&f.json, "json", false, "print the result as one JSON object (with the alignment)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "print the search's progress on stderr after each batch of boxes")
	return cmd
}

// tolerance checks the flags that do not depend on the models and returns
// the tolerance.
func (f *verifyFlags) tolerance() (verify.Tolerance, error) {
	var t verify.Tolerance
	if err := f.input.check(); err != nil {
		return t, err
	}
	if len(f.eps) == 0 {
		return t, usagef("--epsilon is required")
	}
	norm, err := verify.ParseNorm(f.norm)
	if err != nil {
		return t, usagef("--norm %q: want per-output, inf or 2", f.norm)
	}
	t = verify.Tolerance{Norm: norm, Eps: f.eps}
	if f.output >= 0 {
		if norm != verify.PerOutput {
			return t, usagef("--output needs --norm per-output")
		}
		t.Outputs = []int{f.output}
	} else if f.output < -1 {
		return t, usagef("--output %d: want an output index >= 0", f.output)
	}
	if f.timeout < 0 || f.maxNodes < 0 {
		return t, usagef("--timeout and --max-nodes must not be negative")
	}
	return t, nil
}

// runVerify loads the two models, decides and prints.
func runVerify(cmd *cobra.Command, args []string, f *verifyFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	pair, err := f.pair(cmd)
	if err != nil {
		return err
	}
	var tol verify.Tolerance
	if pair == nil {
		if tol, err = f.tolerance(); err != nil {
			return err
		}
	}
	nets, err := f.model.loadPair(args)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	opts := equiv.DefaultOptions()
	opts.Verify.MaxNodes, opts.NoAlign = f.maxNodes, f.noAlign
	if f.verbose {
		opts.Verify.Progress = func(p verify.Progress) {
			fmt.Fprintf(stderr, "verify: %d boxes bounded, %.3g of the box open, bound %.5g, found %.5g\n", p.Nodes, p.Open, p.Bound, p.Found)
		}
	}
	var ans *equiv.Answer
	what := ""
	if pair != nil {
		if err := pair.CheckNetworks(nets[0], nets[1]); err != nil {
			return err
		}
		what = experiment.PairText(pair, f.input.vnnlib)
		ans, err = equiv.Decide(ctx, nets[0], nets[1], pair, opts)
	} else {
		if err := tol.Validate(nets[0].OutputSize()); err != nil {
			return usageError{err}
		}
		var box spec.Box
		if box, err = f.input.boxNoted(nets[0].InputSize(), stderr); err != nil {
			return err
		}
		what = experiment.ToleranceText(tol)
		ans, err = equiv.DecideBox(ctx, nets[0], nets[1], spec.Inputs{Box: box}, tol, opts)
	}
	if err != nil {
		return err
	}
	if f.json {
		err = report.WriteJSON(stdout, ans)
	} else {
		err = experiment.WriteVerdict(stdout, ans, what)
	}
	if err != nil {
		return err
	}
	if ans.Result.Status != verify.Holds {
		return errNotCertified
	}
	return nil
}

// pair reads the VNN-LIB 2.0 two-network property named by --vnnlib, or
// returns nil when --vnnlib is absent or names a VNN-LIB 1 file (a box).
// The property gives the tolerance, so --epsilon, --norm and --output
// must then be absent.
func (f *verifyFlags) pair(cmd *cobra.Command) (*vnnlib.Pair, error) {
	if f.input.vnnlib == "" {
		return nil, nil
	}
	v, err := vnnlib.VersionFile(f.input.vnnlib)
	if err != nil || v != "2.0" {
		return nil, err
	}
	for _, name := range []string{"epsilon", "norm", "output"} {
		if cmd.Flags().Changed(name) {
			return nil, usagef("--%s: the VNN-LIB 2.0 property %s gives the output bounds", name, f.input.vnnlib)
		}
	}
	if err := f.input.check(); err != nil {
		return nil, err
	}
	return vnnlib.ReadPairFile(f.input.vnnlib)
}
