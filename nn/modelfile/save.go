package modelfile

import (
	"fmt"
	"io"

	"github.com/nnbound/nnbound/internal/atomicfile"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/jsonnet"
	"github.com/nnbound/nnbound/nn/onnx"
)

// Save writes net to path in the format of its extension (.onnx or .json),
// atomically: an interrupted save leaves no half-written file. NNet is not
// written (it cannot hold other activations, or the clipping nnbound builds
// into raw-units networks).
func Save(path string, net *nn.Network) error {
	var write func(io.Writer, *nn.Network) error
	switch f := FormatOf(path); f {
	case ONNX:
		write = onnx.Write
	case JSON:
		write = jsonnet.Write
	default:
		return fmt.Errorf("modelfile: cannot save %s: want a .onnx or .json file name: %w", path, ErrUnknownFormat)
	}
	if err := net.Validate(); err != nil {
		return fmt.Errorf("modelfile: cannot save %s: %w", path, err)
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { return write(w, net) }); err != nil {
		return fmt.Errorf("modelfile: %w", err)
	}
	return nil
}
