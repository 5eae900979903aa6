package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/cputime"
	"github.com/nnbound/nnbound/nn/onnx"
	"github.com/nnbound/nnbound/spec"
)

// Int8Options are the options of the int8 suite (bench int8).
type Int8Options struct {
	Dir     string   // the folder of the QDQ models (one subfolder per model)
	Models  []string // subfolders of Dir
	Schemes []string // the int8 schemes (file suffixes)
	// Certify are the options of the certificates: Refine.MaxPieces and
	// Split matter; Refine.TimeBudget is 0, so that the figures do not
	// depend on the machine.
	Certify certify.Options
	Profile string // CPU profile file
}

// DefaultInt8Options returns the defaults of bench int8: the QDQ test
// models, both schemes, no time budget and at most 64 pieces. With no
// time budget and no cap, compare's default, the refinement of the
// larger models would go on for many minutes while it pays; 64, the cap
// of earlier rounds, keeps the table's figures comparable.
func DefaultInt8Options() Int8Options {
	o := Int8Options{Dir: filepath.Join("nn", "onnx", "testdata", "qdq"),
		Models:  []string{"sin3x_relu", "controller_relu", "digits_relu"},
		Schemes: []string{"perchannel", "pertensor"}, Certify: certify.DefaultOptions()}
	o.Certify.Refine.TimeBudget, o.Certify.Refine.MaxPieces = 0, 64
	return o
}

// int8Samples is what bench int8 reads of a model's samples.json.
type int8Samples struct {
	InputBox [2][]float64 `json:"input_box"`
	Models   map[string]struct {
		Sampled float64 `json:"max_abs_int8_vs_float_sampled"`
	} `json:"models"`
}

// Int8 certifies each float model of o against its int8 copies and
// prints the table to w.
func Int8(ctx context.Context, w io.Writer, o *Int8Options) error {
	pieces, split := o.Certify.Refine.MaxPieces, o.Certify.Split
	if pieces < 0 {
		return UsageError{fmt.Errorf("--max-pieces %d, want >= 0 (0: no cap)", pieces)}
	}
	if split < 0 {
		return UsageError{fmt.Errorf("--split %d, want >= 0", split)}
	}
	stop, err := startCPUProfile(o.Profile)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(w, "compare float int8 --pairing same --timeout 0 --max-pieces %d, split %d (2-norm of the output difference)\n\n",
		pieces, split)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tscheme\tbox\tbound\tfound\tratio\tsampled\tbound>=sampled\tpieces\tCPU s\t")
	var ratios []float64
	for _, m := range o.Models {
		s, err := readInt8Samples(filepath.Join(o.Dir, m, "samples.json"))
		if err != nil {
			return err
		}
		box := spec.Box{Lo: s.InputBox[0], Hi: s.InputBox[1]}
		for _, scheme := range o.Schemes {
			c, cpu, err := int8Row(ctx, filepath.Join(o.Dir, m, m+".onnx"),
				filepath.Join(o.Dir, m, m+"_int8_"+scheme+".onnx"), box, o.Certify)
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
// path2 on box, as compare --pairing same --timeout 0 does with o, and
// returns the certificate and its CPU time.
func int8Row(ctx context.Context, path1, path2 string, box spec.Box, o certify.Options) (*certify.Certificate, time.Duration, error) {
	f1, _, err := onnx.Read(path1)
	if err != nil {
		return nil, 0, err
	}
	f2, _, err := onnx.Read(path2)
	if err != nil {
		return nil, 0, err
	}
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
