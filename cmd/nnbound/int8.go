package main

import (
	"github.com/spf13/pflag"

	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// int8Compression returns the int8 quantisation of --scheme int8
// (experiment.Int8), calibrated on the samples of --calibrate or on the
// input box.
func (f *quantiseFlags) int8Compression(fs *pflag.FlagSet) (compression, error) {
	for _, name := range []string{"frac-bits", "bias-frac-bits", "int-bits", "rounding", "saturate", "float16"} {
		if fs.Changed(name) {
			return compression{}, usagef("--scheme int8 and --%s do not go together", name)
		}
	}
	o := f.int8
	if err := o.Validate(); err != nil {
		return compression{}, usagef("--bits %d: want 2 to 8", o.Bits)
	}
	var xs [][]float64
	if f.calibrate != "box" {
		var err error
		if xs, err = quantise.ReadInputs(f.calibrate); err != nil {
			return compression{}, usagef("--calibrate %q: want box or a JSON file {\"inputs\": [[...], ...]}: %v", f.calibrate, err)
		}
	}
	box := func(n int) (spec.Box, error) {
		b, _, err := f.input.box(n)
		return b, err
	}
	return compression{Compression: experiment.Int8(o, f.calibrate, xs, box)}, nil
}
