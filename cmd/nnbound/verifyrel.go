package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/verify"
	"github.com/nnbound/nnbound/vnnlib"
)

// runVerifyRelational is nnbound verify on a relational VNN-LIB 2.0
// property (inputs related by links, outputs compared one-sided, (equal-to
// f)): it loads the two models, decides by verify.DecideRelational and
// prints. Under (equal-to f) g is F's network, whatever G names.
func runVerifyRelational(cmd *cobra.Command, args []string, f *verifyFlags, pair *vnnlib.Pair) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := f.checkLimits(); err != nil {
		return err
	}
	f.model.chainOnly = "relational VNN-LIB 2.0 properties are decided for chains of layers so far"
	nets, err := f.model.loadPair(args)
	if err != nil {
		return err
	}
	if pair.G.EqualTo != "" {
		if args[0] != args[1] {
			fmt.Fprintf(stderr, "verify: %s declares %s equal to %s: deciding with %s for both\n", f.input.vnnlib, pair.G.Name, pair.G.EqualTo, args[0])
		}
		nets[1] = nets[0]
	}
	if err := pair.CheckNetworks(nets[0], nets[1]); err != nil {
		return err
	}
	ctx, cancel := f.context(cmd)
	defer cancel()
	opts, stop := f.options(stderr, func(verify.Progress) string { return "" })
	defer stop()
	res, err := verify.DecideRelational(ctx, nets[0], nets[1], pair.Relational, &opts)
	if err != nil {
		return err
	}
	return f.emitDecided(stdout, res, res.Status)
}
