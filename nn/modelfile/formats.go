package modelfile

import (
	"fmt"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/jsonnet"
	"github.com/nnbound/nnbound/nn/nnet"
	"github.com/nnbound/nnbound/nn/onnx"
)

// decodeONNX reads an ONNX model, its format details going into the
// summary.
func decodeONNX(path string, data []byte, _ Options, info *Info) (*nn.Network, error) {
	net, oi, err := onnx.Decode(data, path)
	if oi != nil {
		info.Summary = oi.String()
	}
	return net, err
}

// decodeNNet reads an NNet file; in raw mode the core network and the
// wrapping are kept for Transform.
func decodeNNet(path string, data []byte, opts Options, info *Info) (*nn.Network, error) {
	core, ni, err := nnet.Parse(path, data, nnet.Options{Core: true})
	if err != nil {
		return nil, err
	}
	info.Core = core
	if opts.Core {
		info.Summary = ni.String()
		return core, nil
	}
	ni.Core = false
	info.Summary = ni.String()
	info.wrap = ni.Wrap
	net, err := ni.Wrap(core)
	if err != nil {
		return nil, fmt.Errorf("nnet: %s: %w", path, err)
	}
	return net, nil
}

// decodeJSON reads a JSON network.
func decodeJSON(path string, data []byte, _ Options, info *Info) (*nn.Network, error) {
	net, err := jsonnet.Parse(path, data)
	if err != nil {
		return nil, err
	}
	info.Summary = "format:       JSON (nnbound layers)\n"
	return net, nil
}
