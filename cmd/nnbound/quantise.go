package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/quantise"
)

func newQuantiseCmd() *cobra.Command {
	var qf quantiseFlags
	return compressCommand(&cobra.Command{
		Use:     "quantise MODEL (--frac-bits FB [--int-bits IB] [--rounding MODE] | --scheme int8) [--save OUT] [--certify]",
		Aliases: []string{"quantize"},
		Short:   "Quantise a network (and certify the error)",
		Long: `Quantise writes the fixed-point copy of a network: every weight and bias
rounded onto the grid of multiples of 2^-FB,

    q(s) = round(s * 2^FB) / 2^FB,

with rounding trunc (toward zero, the paper's and the default), nearest
(ties to even) or floor. With --int-bits IB, values must also fit in
(-2^IB, 2^IB): values out of range are an error saying how many there are
and the largest, unless --saturate clamps them. With --float16 every
parameter is rounded to IEEE half precision instead (round to nearest,
ties to even), the compression of the ReluDiff/NeuroDiff benchmarks.

With --scheme int8 it writes the int8 model people ship instead, in ONNX
QDQ form as PyTorch exports it: int8 weights (one scale per tensor, or per
output channel with --per-channel), int32 biases, and the input and every
layer's pre-activation re-quantised to uint8 with a scale and zero point
(int8 with zero point 0 under --symmetric), saturating at the ends of the
range. The ranges are calibrated on the input box by bound propagation
(--calibrate box, the default: no input of the box saturates) or on the
inputs of a JSON file ({"inputs": [[...], ...]}, --calibrate FILE).
--bits B (2 to 8) narrows weights and activations to B bits; only 8 bits
can be saved in ONNX (opset 13 has no narrower types). --certify then
bounds the error of the int8 model by bound propagation with input
splitting and, for the 2-norm of two or more outputs, by the SDP with
quadratic constraints for its quantisers, with --requant-slack K
widening every re-quantisation by K steps for integer kernels that round
differently from the ONNX reference.

Only the network's own parameters are quantised: an NNet file's clipping
and normalisation stay exact. The copy is saved with --save, in the
format of its extension (.onnx or .json). With --certify it certifies the
error between the network and the copy (then --save is optional); the
copy gets the same input (--pairing same), or with --pairing quantised the
input quantised to --input-frac-bits (default: --frac-bits).

An ONNX model that is a chain of layers (Conv, AveragePool and
BatchNormalization included) is quantised as that chain: batch
normalisation folded in, and each small convolution (at most 2^20 matrix
entries) lowered to its dense matrix over the flattened input (see
inspect's "lowered" line), whose parameter counts are those of the dense
matrix, zeros included; quantising keeps a shared kernel weight equal in
every place it appears. Any other computation graph (residual Add,
Concat, MaxPool, ...) is quantised as a graph with --frac-bits or
--float16: every dense map and convolution rounded, the copy saved as
ONNX and certified by bound propagation with input splitting (the SDP is
for chains); --scheme int8 copies are made of chains only.`,
		Example: `  nnbound quantise model.onnx --frac-bits 8 --save model-q8.onnx
  nnbound quantise model.onnx --frac-bits 8 --certify --lo 0,-1 --hi 1,1
  nnbound quantise model.onnx --float16 --save model-f16.json`,
	}, &qf, "quantised")
}

// quantiseFlags are the flags choosing a quantisation, bound onto a copy of
// quantise.DefaultOptions():
//
//	--frac-bits FB        fractional bits of weights (and biases)
//	--bias-frac-bits FB   fractional bits of biases, if different
//	--int-bits IB         integer bits (0: no range limit)
//	--rounding MODE       trunc, nearest or floor
//	--saturate            clamp out-of-range values instead of failing
//	--float16             IEEE half precision instead of fixed point
type quantiseFlags struct {
	opts         quantise.Options
	rounding     string
	biasFracBits int
	float16      bool
	// --scheme int8 and its flags
	scheme    string
	int8      quantise.Int8Options
	calibrate string
	input     *inputFlags // the box, for --calibrate box (set by the command)
}

// register adds the flags to fs with the library's defaults.
func (f *quantiseFlags) register(fs *pflag.FlagSet) {
	f.opts = quantise.DefaultOptions()
	w := &f.opts.Weights
	f.rounding = w.Rounding.String()
	fs.IntVar(&w.FracBits, "frac-bits", w.FracBits, fmt.Sprintf("fractional bits FB of every weight and bias (1 to %d)", quantise.MaxFracBits))
	fs.IntVar(&f.biasFracBits, "bias-frac-bits", 0, "fractional bits of the biases (default: --frac-bits)")
	fs.IntVar(&w.IntBits, "int-bits", w.IntBits, "integer bits IB: values must lie in (-2^IB, 2^IB) (0: no limit)")
	fs.StringVar(&f.rounding, "rounding", f.rounding, "rounding onto the grid: trunc (toward zero), nearest (ties to even) or floor")
	fs.BoolVar(&w.Saturate, "saturate", w.Saturate, "clamp values out of the --int-bits range instead of failing")
	fs.BoolVar(&f.float16, "float16", false, "round to IEEE half precision instead of fixed point")
	f.int8 = quantise.DefaultInt8Options()
	fs.StringVar(&f.scheme, "scheme", "fixed", "fixed (fixed point, --frac-bits) or int8 (affine int8, ONNX QDQ)")
	fs.IntVar(&f.int8.Bits, "bits", f.int8.Bits, "--scheme int8: width of weights and activations (2 to 8)")
	fs.BoolVar(&f.int8.PerChannel, "per-channel", f.int8.PerChannel, "--scheme int8: one weight scale per output channel")
	fs.BoolVar(&f.int8.Symmetric, "symmetric", f.int8.Symmetric, "--scheme int8: symmetric activations (int8, zero point 0)")
	fs.StringVar(&f.calibrate, "calibrate", "box", "--scheme int8: calibrate the ranges on the input box (box) or on the inputs of a JSON `FILE`")
}

// compression returns the quantisation the flags say. Bad flags are usage
// errors.
func (f *quantiseFlags) compression(fs *pflag.FlagSet) (compression, error) {
	switch f.scheme {
	case "int8":
		return f.int8Compression(fs)
	case "fixed":
	default:
		return compression{}, usagef("--scheme %q: want fixed or int8", f.scheme)
	}
	for _, name := range []string{"bits", "per-channel", "symmetric", "calibrate"} {
		if fs.Changed(name) {
			return compression{}, usagef("--%s needs --scheme int8", name)
		}
	}
	if f.float16 {
		for _, name := range []string{"frac-bits", "bias-frac-bits", "int-bits", "rounding", "saturate"} {
			if fs.Changed(name) {
				return compression{}, usagef("--float16 and --%s do not go together", name)
			}
		}
		return compression{Compression: experiment.Float16()}, nil
	}
	r, err := quantise.ParseRounding(f.rounding)
	if err != nil {
		return compression{}, usagef("--rounding %q: want trunc, nearest or floor", f.rounding)
	}
	opts := f.opts
	opts.Weights.Rounding = r
	opts.Biases = opts.Weights
	if fs.Changed("bias-frac-bits") {
		opts.Biases.FracBits = f.biasFracBits
	}
	w, b := opts.Weights, opts.Biases
	switch {
	case w.FracBits < 1 || w.FracBits > quantise.MaxFracBits:
		return compression{}, usagef("--frac-bits %d: want 1 to %d", w.FracBits, quantise.MaxFracBits)
	case b.FracBits < 1 || b.FracBits > quantise.MaxFracBits:
		return compression{}, usagef("--bias-frac-bits %d: want 1 to %d", b.FracBits, quantise.MaxFracBits)
	case w.IntBits < 0:
		return compression{}, usagef("--int-bits %d: want 0 (no limit) or more", w.IntBits)
	case w.Saturate && w.IntBits == 0:
		return compression{}, usagef("--saturate needs --int-bits")
	}
	if err := opts.Validate(); err != nil {
		return compression{}, usageError{err}
	}
	return compression{Compression: experiment.QuantiseFixed(opts), inputFracBits: w.FracBits}, nil
}
