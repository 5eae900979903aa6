package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/cputime"
	"github.com/nnbound/nnbound/nn/onnx"
	"github.com/nnbound/nnbound/spec"
)

// int8Flags are the flags of bench int8.
type int8Flags struct {
	dir       string
	models    []string
	schemes   []string
	maxPieces int
	split     int
	profile   string // CPU profile file
}

// int8Pieces is the default cap of pieces of "bench int8": with no time
// budget and no cap, compare's default, the refinement of the larger
// models would go on for many minutes while it pays; 64, the cap of
// earlier rounds, keeps the table's figures comparable.
const int8Pieces = 64

// newInt8Cmd returns the int8 benchmark: each float model of the QDQ test
// data against its int8 copies.
func newInt8Cmd() *cobra.Command {
	f := int8Flags{dir: filepath.Join("nn", "onnx", "testdata", "qdq"),
		models:    []string{"sin3x_relu", "controller_relu", "digits_relu"},
		schemes:   []string{"perchannel", "pertensor"},
		maxPieces: int8Pieces, split: certify.DefaultOptions().Split}
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
			return runInt8(cmd.Context(), cmd.OutOrStdout(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.dir, "dir", f.dir, "the folder of the QDQ models (one subfolder per model)")
	fl.StringSliceVar(&f.models, "models", f.models, "the models (subfolders of --dir)")
	fl.StringSliceVar(&f.schemes, "schemes", f.schemes, "the int8 schemes (file suffixes)")
	fl.IntVar(&f.maxPieces, "max-pieces", f.maxPieces, "compare's --max-pieces (0: no cap, refine while it pays)")
	fl.IntVar(&f.split, "split", f.split, "pieces of each bound propagation (certify.Options.Split; 0: none)")
	fl.StringVar(&f.profile, "cpuprofile", "", "write a CPU profile of the certificates to this file")
	return cmd
}

// int8Samples is what bench int8 reads of a model's samples.json.
type int8Samples struct {
	InputBox [2][]float64 `json:"input_box"`
	Models   map[string]struct {
		Sampled float64 `json:"max_abs_int8_vs_float_sampled"`
	} `json:"models"`
}

// runInt8 runs the benchmark and prints its table to w.
func runInt8(ctx context.Context, w io.Writer, f int8Flags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.maxPieces < 0 {
		return usageError{fmt.Errorf("--max-pieces %d, want >= 0 (0: no cap)", f.maxPieces)}
	}
	if f.split < 0 {
		return usageError{fmt.Errorf("--split %d, want >= 0", f.split)}
	}
	stop, err := startCPUProfile(f.profile)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(w, "compare float int8 --pairing same --timeout 0 --max-pieces %d, split %d (2-norm of the output difference)\n\n",
		f.maxPieces, f.split)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tscheme\tbox\tbound\tfound\tratio\tsampled\tbound>=sampled\tpieces\tCPU s\t")
	var ratios []float64
	for _, m := range f.models {
		s, err := readInt8Samples(filepath.Join(f.dir, m, "samples.json"))
		if err != nil {
			return err
		}
		box := spec.Box{Lo: s.InputBox[0], Hi: s.InputBox[1]}
		for _, scheme := range f.schemes {
			c, cpu, err := int8Row(ctx, filepath.Join(f.dir, m, m+".onnx"),
				filepath.Join(f.dir, m, m+"_int8_"+scheme+".onnx"), box, f.maxPieces, f.split)
			if err != nil {
				return err
			}
			sampled := s.Models[scheme].Sampled
			ratio := c.Bound / c.ObservedError
			ratios = append(ratios, ratio)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%.5g\t%.5g\t%.3f\t%.4g\t%v\t%d\t%.1f\t\n", m, scheme, boxString(box),
				c.Bound, c.ObservedError, ratio, sampled, c.Certified() && c.Bound >= sampled, max(1, len(c.Pieces)), cpu.Seconds())
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nmedian ratio %.3f\n", median(ratios))
	return nil
}

// readInt8Samples reads the box and sampled errors of a samples.json.
func readInt8Samples(path string) (int8Samples, error) {
	var s int8Samples
	data, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	if len(s.InputBox[0]) == 0 || len(s.InputBox[0]) != len(s.InputBox[1]) {
		return s, fmt.Errorf("%s: input_box is not two lists of the same length", path)
	}
	return s, nil
}

// int8Row certifies the float model at path1 against the int8 model at
// path2 on box, as compare --pairing same --timeout 0 does (with
// Options.Split = split), and returns the certificate and its CPU time.
func int8Row(ctx context.Context, path1, path2 string, box spec.Box, maxPieces, split int) (*certify.Certificate, time.Duration, error) {
	f1, _, err := onnx.Read(path1)
	if err != nil {
		return nil, 0, err
	}
	f2, _, err := onnx.Read(path2)
	if err != nil {
		return nil, 0, err
	}
	o := certify.DefaultOptions()
	o.Refine.TimeBudget, o.Refine.MaxPieces, o.Split = 0, maxPieces, split
	cpu := cputime.Process()
	c, err := certify.Bound(ctx, f1, f2, spec.Inputs{Box: box, Pairing: spec.SameInput}, spec.Quantity{Norm: spec.Norm2}, o)
	return c, cputime.Process() - cpu, err
}

// boxString returns "[lo,hi]" when every coordinate of box has the same
// ends, with the dimension as a power, and "box" otherwise.
func boxString(box spec.Box) string {
	for i := range box.Lo {
		if box.Lo[i] != box.Lo[0] || box.Hi[i] != box.Hi[0] {
			return "box"
		}
	}
	if len(box.Lo) == 1 {
		return fmt.Sprintf("[%g,%g]", box.Lo[0], box.Hi[0])
	}
	return fmt.Sprintf("[%g,%g]^%d", box.Lo[0], box.Hi[0], len(box.Lo))
}
