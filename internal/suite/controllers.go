package suite

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/cputime"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/onnx"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// ControllersOptions are the options of bench controllers: the models,
// and the options of the certificates (compare's defaults, its time
// budget included, as a user gets them).
type ControllersOptions struct {
	// Tanh are the tanh-output controllers (ONNX files), each certified
	// against its fixed-point copy (quantise.DefaultOptions: FB 8) over
	// [-1, 1]^n.
	Tanh []string
	// Int8 are float models MODEL.onnx, each certified against its int8
	// copies MODEL_int8_SCHEME.onnx beside it over the box of the
	// samples.json beside it.
	Int8 []string
	// Schemes are the int8 schemes (file suffixes).
	Schemes []string
	// Certify are the options of every certificate.
	Certify certify.Options
	// Profile is the file of a CPU profile of the certificates ("": none).
	Profile string
}

// DefaultControllersOptions returns the defaults of bench controllers:
// the tanh-output controllers and int8 MLPs of testdata/controllers (made
// by its generate.py) with certify/testdata/tanhout and the QDQ test
// data's controller_relu, both int8 schemes, compare's default options.
// The paths are relative to the repository's root.
func DefaultControllersOptions() ControllersOptions {
	c := filepath.Join("testdata", "controllers")
	o := ControllersOptions{
		Tanh:    []string{filepath.Join("certify", "testdata", "tanhout", "tanhout.onnx")},
		Int8:    []string{filepath.Join("nn", "onnx", "testdata", "qdq", "controller_relu", "controller_relu.onnx")},
		Schemes: []string{"perchannel", "pertensor"}, Certify: certify.DefaultOptions()}
	for _, m := range []string{"tanh4a", "tanh4b", "tanh6a", "tanh6b"} {
		o.Tanh = append(o.Tanh, filepath.Join(c, m, m+".onnx"))
	}
	for _, m := range []string{"mlp5", "mlp6", "mlp8"} {
		o.Int8 = append(o.Int8, filepath.Join(c, m, m+".onnx"))
	}
	return o
}

// Controllers writes the table of bench controllers: for each tanh
// controller, "nnbound quantise M --frac-bits 8 --certify" with default
// flags; for each int8 pair, "nnbound compare M M_int8_SCHEME --lo .. --hi
// .." with default flags (the same input, the 2-norm): the bound, the
// largest error found, their ratio, why the refinement stopped, the
// pieces, the CPU and wall seconds; then the median ratio of each kind.
func Controllers(ctx context.Context, w io.Writer, o *ControllersOptions) error {
	stop, err := startCPUProfile(o.Profile)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(w, "## bench controllers (load average %.3g at the start)\n\n", loadAverage())
	fmt.Fprintln(w, "| kind | model | copy | inputs | bound | found | ratio | stopped | pieces | CPU s | wall s |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	ratios := map[string][]float64{}
	row := func(kind, name, copyName string, f1, f2 *nn.Network, box spec.Box) error {
		if ctx != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		start, cpu := time.Now(), cputime.Process()
		c, err := certify.Bound(ctx, f1, f2, spec.Inputs{Box: box, Pairing: spec.SameInput}, spec.Quantity{Norm: spec.Norm2}, o.Certify)
		if err != nil {
			return fmt.Errorf("%s %s: %w", name, copyName, err)
		}
		cs, wall := (cputime.Process() - cpu).Seconds(), time.Since(start).Seconds()
		if !c.Certified() || c.ObservedError > c.Bound {
			return fmt.Errorf("%s %s: %v, bound %g, found %g: %w", name, copyName, c.Status, c.Bound, c.ObservedError, ErrChecksFailed)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d | %.5g | %.5g | %.3f | %v | %d | %.2f | %.2f |\n", kind, name, copyName,
			f1.InputSize(), c.Bound, c.ObservedError, c.Ratio(), c.Stopped, max(1, len(c.Pieces)), cs, wall)
		ratios[kind] = append(ratios[kind], c.Ratio())
		return nil
	}
	for _, path := range o.Tanh {
		f, _, err := onnx.Read(path)
		if err != nil {
			return err
		}
		fq, err := quantise.Network(f, quantise.DefaultOptions())
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := row("tanh", modelName(path), "FB 8", f, fq, symmetricBox(f.InputSize())); err != nil {
			return err
		}
	}
	for _, path := range o.Int8 {
		s, err := readInt8Samples(filepath.Join(filepath.Dir(path), "samples.json"))
		if err != nil {
			return err
		}
		f, _, err := onnx.Read(path)
		if err != nil {
			return err
		}
		for _, scheme := range o.Schemes {
			fq, _, err := onnx.Read(strings.TrimSuffix(path, ".onnx") + "_int8_" + scheme + ".onnx")
			if err != nil {
				return err
			}
			if err := row("int8", modelName(path), scheme, f, fq, spec.Box{Lo: s.InputBox[0], Hi: s.InputBox[1]}); err != nil {
				return err
			}
		}
	}
	fmt.Fprintln(w, "\n| kind | pairs | median bound / found | largest |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, kind := range []string{"tanh", "int8"} {
		if r := ratios[kind]; len(r) > 0 {
			hi := math.Inf(-1)
			for _, v := range r {
				hi = max(hi, v)
			}
			fmt.Fprintf(w, "| %s | %d | %.3f | %.3f |\n", kind, len(r), median(r), hi)
		}
	}
	return nil
}

// modelName returns the file name of path without its extension.
func modelName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// symmetricBox returns [-1, 1]^n.
func symmetricBox(n int) spec.Box {
	b := spec.Box{Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := range b.Lo {
		b.Lo[i], b.Hi[i] = -1, 1
	}
	return b
}
