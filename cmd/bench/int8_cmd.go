package main

import (
	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/suite"
)

// newInt8Cmd returns the int8 benchmark: each float model of the QDQ test
// data against its int8 copies.
func newInt8Cmd() *cobra.Command {
	o := suite.DefaultInt8Options()
	cmd := &cobra.Command{
		Use:   "int8",
		Short: "Certify float models against their int8 (QDQ) copies",
		Long: `For each model of --dir (by default nn/onnx/testdata/qdq, the PyTorch
int8 exports of the team's float models; run from the repository root) and
each scheme, certify ||f(x) - f_q(x)||_2 between MODEL/MODEL.onnx and
MODEL/MODEL_int8_SCHEME.onnx for every x of the box that MODEL/samples.json
gives (input_box, the box the int8 copy was calibrated for), as

    nnbound compare MODEL.onnx MODEL_int8_SCHEME.onnx --pairing same --timeout 0 --max-pieces N --lo ... --hi ...

does (with --split, certify.Options.Split, which compare leaves at its
default: the pieces each bound propagation cuts its piece into; 0 leaves
all splitting to the refinement, cheaper per piece where there are
thousands). Prints one row per pair: the bound, the largest error found, their
ratio (the acceptance asks at most 1.5), the largest |int8 - float|
output difference that generate.py sampled (max_abs_int8_vs_float_sampled,
which the bound must not be below), the pieces of the split box and the
CPU seconds of the certificate; then the median ratio. No time budget: the
numbers do not depend on the machine.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return suite.Int8(cmd.Context(), cmd.OutOrStdout(), &o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Dir, "dir", o.Dir, "the folder of the QDQ models (one subfolder per model)")
	fl.StringSliceVar(&o.Models, "models", o.Models, "the models (subfolders of --dir)")
	fl.StringSliceVar(&o.Schemes, "schemes", o.Schemes, "the int8 schemes (file suffixes)")
	fl.IntVar(&o.Certify.Refine.MaxPieces, "max-pieces", o.Certify.Refine.MaxPieces, "compare's --max-pieces (0: no cap, refine while it pays)")
	fl.IntVar(&o.Certify.Split, "split", o.Certify.Split, "pieces of each bound propagation (certify.Options.Split; 0: none)")
	fl.StringVar(&o.Profile, "cpuprofile", "", "write a CPU profile of the certificates to this file")
	return cmd
}
