package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/cputime"
	"github.com/nnbound/nnbound/internal/duration"
	"github.com/nnbound/nnbound/internal/progress"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
	"github.com/nnbound/nnbound/verify"
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
	property string
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
(an asymmetric range is decided about its centre). Any other VNN-LIB 2.0
property (inputs related by ==, <= or a bounded difference, outputs
compared one-sided, (equal-to f), as in monotonicity) is decided by
branch and bound over the joint input set: holds when no pair of the set
satisfies its unsafe condition, violated with a pair that does
(evaluated again); under (equal-to f), F serves as g.

Before deciding, g's hidden neurons are matched to f's and g permuted
accordingly (which keeps g's function; --no-align turns it off); the
alignment is printed, and is "alignment" in --json.

--property top1 asks instead whether G picks F's class at every input of
the box (argmax G(x) = argmax F(x), a tie counting as a disagreement):
holds when both networks provably keep one class on every piece of the
box, violated with an input where they pick different classes
(evaluated again with directed rounding). It takes no --epsilon, --norm
or --output; the box comes from --box, --lo/--hi or a VNN-LIB 1 file.

Exit status: 0 holds, 1 violated, unknown or an error, 2 usage error.`,
		Example: `  nnbound verify nn/onnx/testdata/torch/sin3x_relu/sin3x_relu.onnx docs/examples/vnncomp-sin3x/sin3x_relu_q8.onnx --epsilon 0.03
  nnbound verify f.onnx g.onnx --epsilon 0.05 --lo 0,0 --hi 1,1 --json
  nnbound verify f.onnx g.onnx --vnnlib equivalence.vnnlib
  nnbound verify testdata/graphs/digits_cnn.onnx testdata/graphs/digits_cnn_int8_torch.onnx --property top1 --box 0:1 --timeout 30s`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(cmd, args, &f)
		},
	}
	fs := cmd.Flags()
	f.model.register(fs)
	f.input.register(fs)
	fs.Var(&positives{p: &f.eps}, "epsilon", "tolerance `E`: one for all outputs, or one per output (per-output norm)")
	fs.StringVar(&f.norm, "norm", spec.PerOutput.String(), "how the difference is compared: per-output, inf or 2")
	fs.IntVar(&f.output, "output", -1, "compare output `K` only (0-based; per-output norm; -1: all)")
	f.timeout = verifyTimeout
	duration.Var(fs, &f.timeout, "timeout", "stop with unknown after this long (0: no limit)")
	fs.IntVar(&f.maxNodes, "max-nodes", 0, "stop with unknown after bounding this many boxes (0: no limit)")
	fs.StringVar(&f.property, "property", "epsilon", "what is decided: epsilon (|G - F| within --epsilon) or top1 (the same class)")
	fs.BoolVar(&f.noAlign, "no-align", false, "do not match g's hidden neurons to f's before deciding")
	fs.BoolVar(&f.json, "json", false, "print the result as one JSON object (with the alignment)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "print the search's progress on stderr after each batch of boxes")
	return cmd
}

// tolerance checks the flags that do not depend on the models and returns
// the tolerance.
func (f *verifyFlags) tolerance() (spec.Tolerance, error) {
	var t spec.Tolerance
	if err := f.input.check(); err != nil {
		return t, err
	}
	if len(f.eps) == 0 {
		return t, usagef("--epsilon is required")
	}
	norm, err := spec.ParseNorm(f.norm)
	if err != nil {
		return t, usagef("--norm %q: want per-output, inf or 2", f.norm)
	}
	t = spec.Tolerance{Norm: norm, Eps: f.eps}
	if f.output >= 0 {
		if norm != spec.PerOutput {
			return t, usagef("--output needs --norm per-output")
		}
		t.Outputs = []int{f.output}
	} else if f.output < -1 {
		return t, usagef("--output %d: want an output index >= 0", f.output)
	}
	if err := f.checkLimits(); err != nil {
		return t, err
	}
	return t, nil
}

// checkLimits reports a negative --timeout or --max-nodes.
func (f *verifyFlags) checkLimits() error {
	return checkLimits(f.timeout, count{"--max-nodes", f.maxNodes})
}

// runVerify loads the two models, decides and prints.
func runVerify(cmd *cobra.Command, args []string, f *verifyFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	switch f.property {
	case "top1":
		return runVerifyTop1(cmd, args, f)
	case "epsilon":
	default:
		return usagef("--property %q: want epsilon or top1", f.property)
	}
	prop, err := f.readProperty(cmd)
	if err != nil {
		return err
	}
	if prop != nil && prop.Pair != nil && prop.Pair.Relational != nil {
		return runVerifyRelational(cmd, args, f, prop.Pair)
	}
	var tol spec.Tolerance
	if prop == nil || prop.Pair == nil {
		if tol, err = f.tolerance(); err != nil {
			return err
		}
	}
	ms, err := f.model.loadGraphPair(args)
	if err != nil {
		return err
	}
	nets := [2]*nn.Network{ms[0].Net, ms[1].Net}
	ctx, cancel := f.context(cmd)
	defer cancel()
	opts, stop := f.options(stderr, func(p verify.Progress) string {
		return fmt.Sprintf(", bound %.5g, found %.5g", p.Bound, p.Found)
	})
	defer stop()
	align := verify.AlignNeurons
	if f.noAlign {
		align = verify.KeepNeurons
	}
	var ans *verify.Answer
	if prop != nil && prop.Pair != nil {
		pair := prop.Pair
		if err := pair.CheckNetworks(ms[0].Graph, ms[1].Graph); err != nil {
			return err
		}
		if ans, err = verify.DecidePropertyModels(ctx, ms[0].Graph, ms[1].Graph, nets[0], nets[1], &pair.Property, align, &opts); err != nil {
			return err
		}
	} else {
		if err := checkTolerance(tol, ms[0].Graph.OutputSize()); err != nil {
			return err
		}
		box, err := f.box(prop, ms[0].Graph.InputSize(), stderr)
		if err != nil {
			return err
		}
		ans, err = verify.DecideModels(ctx, ms[0].Graph, ms[1].Graph, nets[0], nets[1], spec.Inputs{Box: box}, tol, align, &opts)
		if err != nil {
			return err
		}
	}
	return f.emitDecided(stdout, ans, ans.Result.Status)
}

// checkTolerance reports, as a usage error naming the flag, a tolerance
// of the flags that does not fit networks of m outputs: --output out of
// range, or a count of --epsilon values that is neither 1 nor one per
// output.
func checkTolerance(tol spec.Tolerance, m int) error {
	for _, k := range tol.Outputs {
		if err := checkOutput(k, m); err != nil {
			return err
		}
	}
	if err := tol.Validate(m); err != nil {
		if len(tol.Eps) != 1 {
			return usagef("--epsilon has %d values: want one, or one per output (%d) with --norm per-output", len(tol.Eps), m)
		}
		return usageError{err}
	}
	return nil
}

// box returns the input box of the flags, or of the VNN-LIB 1 property
// prop when not nil, for n inputs, with any note on stderr.
func (f *verifyFlags) box(prop *vnnlib.Property, n int, stderr io.Writer) (spec.Box, error) {
	if prop != nil {
		return f.input.specBoxNoted(prop.Spec, n, stderr)
	}
	return f.input.boxNoted(n, stderr)
}

// context returns the command's context, with the deadline of --timeout.
func (f *verifyFlags) context(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if f.timeout > 0 {
		return context.WithTimeout(ctx, f.timeout)
	}
	return context.WithCancel(ctx)
}

// options returns the search's options of the flags and the function
// that stops its progress: under --verbose the progress goes to stderr,
// one line per batch, ending with more(p); otherwise it is a status line
// (progress.StartStatus: on a terminal or under --progress, after two
// seconds).
func (f *verifyFlags) options(stderr io.Writer, more func(verify.Progress) string) (verify.Options, func()) {
	opts := verify.DefaultOptions()
	opts.MaxNodes = f.maxNodes
	if f.verbose {
		opts.Progress = func(p verify.Progress) {
			fmt.Fprintf(stderr, "verify: %d boxes bounded, %.3g of the box open%s\n", p.Nodes, p.Open, more(p))
		}
		return opts, func() {}
	}
	var log io.Writer
	stop, status := progress.StartStatus(stderr, "verify", &log)
	opts.Progress = func(p verify.Progress) {
		status(fmt.Sprintf("%d boxes bounded, %.3g of the box open%s", p.Nodes, p.Open, more(p)))
	}
	return opts, stop
}

// openProperty opens the file of --vnnlib (a variable, so that a test can
// count the opens).
var openProperty = vnnlib.Open

// readProperty reads the VNN-LIB file named by --vnnlib, once, or returns nil
// when --vnnlib is absent. A VNN-LIB 2.0 two-network property gives the
// tolerance, so --epsilon, --norm and --output must then be absent; a
// VNN-LIB 1 file gives the box.
func (f *verifyFlags) readProperty(cmd *cobra.Command) (*vnnlib.Property, error) {
	if f.input.vnnlib == "" {
		return nil, nil
	}
	if err := f.input.check(); err != nil {
		return nil, err
	}
	r, err := openProperty(f.input.vnnlib)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	p, err := vnnlib.ReadProperty(r, filepath.Base(f.input.vnnlib))
	if err != nil || p.Pair == nil {
		return p, err
	}
	for _, name := range []string{"epsilon", "norm", "output"} {
		if cmd.Flags().Changed(name) {
			return nil, usagef("--%s: the VNN-LIB 2.0 property %s gives the output bounds", name, f.input.vnnlib)
		}
	}
	return p, nil
}

// emitDecided prints a decision of verify, res with its status (text, or
// JSON under --json, with the process's CPU time: verify.Report), and
// returns errNotCertified unless it holds.
func (f *verifyFlags) emitDecided(stdout io.Writer, res verify.Decision, status verify.Status) error {
	r := verify.Report{JSON: f.json, CPU: cputime.Process(), HideTimes: hideTimes}
	if err := r.Write(stdout, res); err != nil {
		return err
	}
	if status != verify.Holds {
		return errNotCertified
	}
	return nil
}
