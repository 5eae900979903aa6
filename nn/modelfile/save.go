package modelfile

import (
	"fmt"
	"io"

	"github.com/nnbound/nnbound/internal/atomicfile"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/jsonnet"
	"github.com/nnbound/nnbound/nn/onnx"
)

// Save writes net to the file path in the format its extension names
// (FormatOf), atomically: through a temporary file renamed over path, so
// that no half-written file is left behind.
func Save(path string, net *nn.Network) error {
	return atomicfile.Write(path, func(w io.Writer) error { return Write(w, FormatOf(path), net) })
}

// SaveGraph writes g to the file path as ONNX, atomically as Save does.
func SaveGraph(path string, g *nn.Graph) error {
	return atomicfile.Write(path, func(w io.Writer) error { return onnx.WriteGraph(w, g) })
}

// Write writes net to w in format f (ONNX or JSON) after validating it.
// NNet is not written (it cannot hold other activations, or the clipping
// nnbound builds into raw-units networks). Save writes a file.
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
