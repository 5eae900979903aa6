package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// int8Compression returns the int8 quantisation of --scheme int8.
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
	what := fmt.Sprintf("%v, calibrated on %s", o, f.calibrate)
	return compression{Compression: experiment.Compression{What: what, Apply: func(core *nn.Network) (*nn.Network, error) {
		r, err := f.ranges(core, xs)
		if err != nil {
			return nil, err
		}
		return quantise.Int8(core, r, o)
	}}}, nil
}

// ranges returns the calibrated ranges of core (experiment.Calibrate): on
// the sample inputs xs or, for none, on the input box.
func (f *quantiseFlags) ranges(core *nn.Network, xs [][]float64) (quantise.Ranges, error) {
	var box spec.Box
	if xs == nil {
		var err error
		if box, _, err = f.input.box(core.InputSize()); err != nil {
			return quantise.Ranges{}, err
		}
	}
	return experiment.Calibrate(core, xs, box)
}
