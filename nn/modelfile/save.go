package modelfile

import (
	"fmt"
	"io"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/jsonnet"
	"github.com/nnbound/nnbound/nn/onnx"
)

// Write writes net to w in format f (ONNX or JSON) after validating it.
// NNet is not written (it cannot hold other activations, or the clipping
// nnbound builds into raw-units networks). To save to a file without
// leaving a half-written one, the commands wrap Write in a temporary file
// renamed over the destination; FormatOf picks f from a file name.
func Write(w io.Writer, f Format, net *nn.Network) error {
	var write func(io.Writer, *nn.Network) error
	switch f {
	case ONNX:
		write = onnx.Write
	case JSON:
		write = jsonnet.Write
	default:
		return fmt.Errorf("modelfile: cannot write %v: want ONNX or JSON: %w", f, ErrUnknownFormat)
	}
	if err := net.Validate(); err != nil {
		return fmt.Errorf("modelfile: cannot write: %w", err)
	}
	if err := write(w, net); err != nil {
		return fmt.Errorf("modelfile: %w", err)
	}
	return nil
}
