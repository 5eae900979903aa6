package experiment

import (
	"fmt"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// Int8 returns the affine int8 quantisation by o (quantise.Int8), made
// of chains only: the ranges are calibrated (Calibrate) on the sample
// inputs xs or, for none, on the input box that box returns for the
// number of inputs of the core network; calibration names what they are
// calibrated on in What ("box" or a file name).
func Int8(o quantise.Int8Options, calibration string, xs [][]float64, box func(inputs int) (spec.Box, error)) Compression {
	return Compression{What: fmt.Sprintf("%v, calibrated on %s", o, calibration), Apply: func(core *nn.Network) (*nn.Network, error) {
		var b spec.Box
		if xs == nil {
			var err error
			if b, err = box(core.InputSize()); err != nil {
				return nil, err
			}
		}
		r, err := Calibrate(core, xs, b)
		if err != nil {
			return nil, err
		}
		return quantise.Int8(core, r, o)
	}}
}
