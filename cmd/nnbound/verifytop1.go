package main

import (
	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/spec"
	"github.com/nnbound/nnbound/verify"
)

// runVerifyTop1 is nnbound verify --property top1: it loads the two
// models, decides top-1 agreement on the box and prints.
func runVerifyTop1(cmd *cobra.Command, args []string, f *verifyFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	for _, name := range []string{"epsilon", "norm", "output"} {
		if cmd.Flags().Changed(name) {
			return usagef("--%s: --property top1 compares classes, not outputs", name)
		}
	}
	if err := f.input.check(); err != nil {
		return err
	}
	if err := f.checkLimits(); err != nil {
		return err
	}
	prop, err := f.readProperty(cmd)
	if err != nil {
		return err
	}
	if prop != nil && prop.Pair != nil {
		return usagef("--vnnlib %s: a VNN-LIB 2.0 two-network property states output ranges; --property top1 takes a box", f.input.vnnlib)
	}
	f.model.chainOnly = "--property top1 is decided for chains of layers so far: --epsilon E decides graph pairs"
	nets, err := f.model.loadPair(args)
	if err != nil {
		return err
	}
	box, err := f.box(prop, nets[0].InputSize(), stderr)
	if err != nil {
		return err
	}
	ctx, cancel := f.context(cmd)
	defer cancel()
	opts, stop := f.options(stderr, func(verify.Progress) string { return "" })
	defer stop()
	res, err := verify.DecideTop1(ctx, nets[0], nets[1], spec.Inputs{Box: box}, &opts)
	if err != nil {
		return err
	}
	return f.emitDecided(stdout, res, res.Status)
}
