package main

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/vnncomp"
	"github.com/nnbound/nnbound/vnncomp/equiv"
)

// newVnncompInstanceCmd returns "nnbound vnncomp run-instance", the one
// instance of VNN-COMP's run_instance.sh (decide nil: package equiv's
// decider).
func newVnncompInstanceCmd(decide vnncomp.Decider) *cobra.Command {
	eo := equiv.DefaultOptions()
	cmd := &cobra.Command{
		Use:   "run-instance NETWORKS VNNLIB RESULT TIMEOUT",
		Short: "Decide one VNN-COMP instance and write its result file",
		Long: `Decide one instance as VNN-COMP's run_instance.sh does and write the result
file RESULT: unsat, sat with the counterexample (VNN-LIB 1: ((X_0 v) ...
(Y_0 v)); VNN-LIB 2.0: NAME type [shape] and the values of every input and
output of f and g), timeout (also for a verdict found after TIMEOUT
seconds), unknown, or error (an instance that cannot run). NETWORKS is the
instances file's first field: an .onnx path, or the quoted list
"[('f', 'a.onnx'), ('g', 'b.onnx')]". vnncomp/scripts holds the
competition's scripts around this command.

Exit status: 0 the result file was written (whatever it says), 1 it could
not be written, 2 usage error.`,
		Example: `  nnbound vnncomp run-instance "[('f', 'a.onnx'), ('g', 'b.onnx')]" prop.vnnlib result.txt 60
  nnbound vnncomp run-instance model.onnx prop.vnnlib result.txt 116`,
		Args: exactArgs(4),
		RunE: func(cmd *cobra.Command, args []string) error {
			secs, err := strconv.ParseFloat(args[3], 64)
			if err != nil || !(secs > 0) || math.IsInf(secs, 0) {
				return usagef("TIMEOUT %q: want a positive number of seconds", args[3])
			}
			d := decide
			if d == nil {
				d = equiv.Decider(eo)
			}
			o, err := vnncomp.RunInstance(cmd.Context(), args[0], args[1], args[2], time.Duration(secs*float64(time.Second)), d)
			if err != nil {
				return err
			}
			msg := fmt.Sprintf("%s in %.3g s", o.Result, o.Time.Seconds())
			if o.Err != nil {
				msg += ": " + o.Err.Error()
			}
			fmt.Fprintln(cmd.ErrOrStderr(), msg)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&eo.NoAlign, "no-align", false, "do not match g's hidden neurons to f's before deciding")
	fs.IntVar(&eo.Verify.MaxNodes, "max-nodes", eo.Verify.MaxNodes, "stop with unknown after bounding this many boxes (0: no limit)")
	return cmd
}
