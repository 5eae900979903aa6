package modelfile

import (
	"errors"
	"fmt"
	"io"

	"github.com/nnbound/nnbound/nn"
)

// errNoONNX stands in for the ONNX reader and writer until nn/onnx lands.
var errNoONNX = errors.New("ONNX support is not built in yet")

func decodeONNX(path string, _ []byte, _ Options, _ *Info) (*nn.Network, error) {
	return nil, fmt.Errorf("modelfile: %s: %w", path, errNoONNX)
}

func writeONNX(io.Writer, *nn.Network) error { return errNoONNX }
