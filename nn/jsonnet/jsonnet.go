// Package jsonnet reads and writes networks in nnbound's JSON format, the
// format of the paper authors' example networks:
//
//	{"layers": [
//	  {"weight": [[...], ...], "bias": [...], "activation": "relu"},
//	  ...
//	]}
//
// weight is row-major [out][in] (the W of y = act(W h + b)). activation is
// one of linear (or identity), relu, leaky_relu, tanh, sigmoid, elu and
// hardtanh; leaky_relu and elu take "alpha" (default 0.01 and 1, PyTorch's),
// hardtanh takes "lo" and "hi" (default -1 and 1). Write prints every number
// with %.17g, so a network read back is bit-for-bit the one written.
package jsonnet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/internal/gzfile"
	"github.com/nnbound/nnbound/internal/jsonpos"
	"github.com/nnbound/nnbound/nn"
)

// ErrFormat reports a malformed JSON network file.
var ErrFormat = errors.New("malformed JSON network")

// file and layer mirror the JSON document.
type file struct {
	Layers []layer `json:"layers"`
}

type layer struct {
	Weight     [][]number `json:"weight"`
	Bias       []number   `json:"bias"`
	Activation *string    `json:"activation"`
	Alpha      *float64   `json:"alpha,omitempty"`
	Lo         *float64   `json:"lo,omitempty"`
	Hi         *float64   `json:"hi,omitempty"`
}

// Read reads the JSON network at path, gzipped or not (see
// internal/gzfile for when path.gz is read instead).
func Read(path string) (*nn.Network, error) {
	data, name, err := gzfile.ReadFile(path, 0)
	if err != nil {
		return nil, fmt.Errorf("jsonnet: %w", err)
	}
	return Parse(name, data)
}

// Parse reads a JSON network from data; name is used in error messages,
// which also give the line and column of syntax errors. Unknown fields are
// errors, so a misspelt key cannot go unnoticed.
func Parse(name string, data []byte) (*nn.Network, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f file
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("jsonnet: %s%s: %w: %w", name, jsonpos.Position(data, err), err, ErrFormat)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("jsonnet: %s: data after the network: %w", name, ErrFormat)
	}
	if len(f.Layers) == 0 {
		return nil, fmt.Errorf("jsonnet: %s: no layers: %w", name, nn.ErrDimension)
	}
	net := &nn.Network{Layers: make([]nn.Layer, len(f.Layers))}
	for k, l := range f.Layers {
		nl, err := l.toLayer()
		if err != nil {
			return nil, fmt.Errorf("jsonnet: %s: layer %d: %w", name, k, err)
		}
		net.Layers[k] = nl
	}
	if err := net.Validate(); err != nil {
		return nil, fmt.Errorf("jsonnet: %s: %w", name, err)
	}
	return net, nil
}

// toLayer checks the shape of l and converts it.
func (l layer) toLayer() (nn.Layer, error) {
	out := len(l.Weight)
	if out == 0 {
		return nn.Layer{}, fmt.Errorf("no weight rows: %w", nn.ErrDimension)
	}
	in := len(l.Weight[0])
	if in == 0 {
		return nn.Layer{}, fmt.Errorf("weight row 0 is empty: %w", nn.ErrDimension)
	}
	w := make([]float64, 0, out*in)
	for i, row := range l.Weight {
		if len(row) != in {
			return nn.Layer{}, fmt.Errorf("weight row %d has %d values, row 0 has %d: %w", i, len(row), in, nn.ErrDimension)
		}
		for _, v := range row {
			w = append(w, float64(v))
		}
	}
	if len(l.Bias) != out {
		return nn.Layer{}, fmt.Errorf("%d biases for %d weight rows: %w", len(l.Bias), out, nn.ErrDimension)
	}
	act, err := l.activation()
	if err != nil {
		return nn.Layer{}, err
	}
	b := make([]float64, out)
	for i, v := range l.Bias {
		b[i] = float64(v)
	}
	return nn.Layer{W: mat.NewDense(out, in, w), B: b, Act: act}, nil
}

// activation converts the activation name and its parameters.
func (l layer) activation() (nn.Activation, error) {
	if l.Activation == nil {
		return nn.Activation{}, fmt.Errorf("no activation: %w", ErrFormat)
	}
	kind, err := nn.ParseActivationKind(*l.Activation)
	if err != nil {
		return nn.Activation{}, fmt.Errorf("%w: %w", err, ErrFormat)
	}
	a := nn.Activation{Kind: kind}
	get := func(p *float64, def float64) float64 {
		if p == nil {
			return def
		}
		return *p
	}
	switch kind {
	case nn.LeakyReLU:
		a.Alpha = get(l.Alpha, 0.01)
	case nn.ELU:
		a.Alpha = get(l.Alpha, 1)
	case nn.HardTanh:
		a.Lo, a.Hi = get(l.Lo, -1), get(l.Hi, 1)
	}
	if (l.Alpha != nil && kind != nn.LeakyReLU && kind != nn.ELU) || ((l.Lo != nil || l.Hi != nil) && kind != nn.HardTanh) {
		return nn.Activation{}, fmt.Errorf("activation %q takes no such parameter: %w", *l.Activation, ErrFormat)
	}
	return a, nil
}

// number is a float64 that must be written as a JSON number (null, which
// encoding/json would silently read as "leave unchanged", is an error).
type number float64

// UnmarshalJSON parses a JSON number, correctly rounded to float64.
func (n *number) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("%.40s is not a number in the float64 range", b)
	}
	*n = number(v)
	return nil
}
