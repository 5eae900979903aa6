package main

import (
	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/duration"
	"github.com/nnbound/nnbound/internal/suite"
)

// newViTCmd returns the benchmark of the tiny vision transformer.
func newViTCmd() *cobra.Command {
	o := suite.DefaultViTOptions()
	cmd := &cobra.Command{
		Use:   "vit",
		Short: "Certify and verify the tiny ViT of testdata/graphs against its float16 and FB-8 copies",
		Long: `For vit_digits.onnx (in --dir, by default testdata/graphs, run from the
repository root) and each copy of --copies (float16: every parameter
rounded to half precision; fb8: to 8 fractional bits), certify
||f(x) - g(x)||_2 over the L-inf balls of radius 1/255 (clipped to
[0, 1]) around the first --balls test images of digits_test.json, as

    nnbound compare vit_digits.onnx COPY.onnx --lo ... --hi ...

does with its defaults. "found" is the larger of the certificate's own
observed error and the error found by a search of this command's own
(300 samples of the ball, corners and points near its faces, then a
gradient-free climb from the best three), which shares no code with the
certificate's. With --verify D (default 100s; 0: none) it then runs
verify at eps = 2 found, stopped after D. Per ball: bound, both errors,
bound / found, seconds and CPU seconds of the certificate, verify's
verdict and seconds; then per copy the median ratio, and the process's
CPU time and peak memory. --cpuprofile writes a CPU profile of the run
(go tool pprof reads it).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return suite.ViT(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Dir, "dir", o.Dir, "folder of vit_digits.onnx and digits_test.json")
	fs.StringSliceVar(&o.Copies, "copies", o.Copies, "copies to compare: float16, fb8")
	fs.IntVar(&o.Balls, "balls", o.Balls, "balls per copy")
	duration.Var(fs, &o.Verify, "verify", "verify at 2x the error found, stopped after this long (0: no verify)")
	fs.StringVar(&o.Profile, "cpuprofile", "", "write a CPU profile of the run to this file")
	return cmd
}
