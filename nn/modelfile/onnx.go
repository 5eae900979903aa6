package modelfile

import (
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/onnx"
)

// decodeONNX reads an ONNX model; its details go into the summary even when
// the translation fails.
func decodeONNX(path string, data []byte, _ Options, info *Info) (*nn.Network, error) {
	net, oi, err := onnx.Decode(data, path)
	if oi != nil {
		info.Summary = oi.String()
	}
	return net, err
}

// writeONNX writes net as ONNX.
var writeONNX = onnx.Write
