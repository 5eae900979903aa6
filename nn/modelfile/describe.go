package modelfile

import (
	"strings"

	"github.com/nnbound/nnbound/nn"
)

// Description is what "nnbound inspect --json" prints of a network read
// from a file: the file, its format's details, the sizes and the layers.
type Description struct {
	File       string   `json:"file"`
	Bytes      int64    `json:"bytes"`
	Format     string   `json:"format"`
	Sniffed    bool     `json:"sniffed"`
	Details    []Detail `json:"details"`
	Inputs     int      `json:"inputs"`
	Outputs    int      `json:"outputs"`
	Sizes      []int    `json:"sizes"`
	Parameters int      `json:"parameters"`
	// CoreSizes and CoreParameters describe the network quantise and
	// prune compress: the loaded one, or an NNet file's core.
	CoreSizes      []int              `json:"core_sizes"`
	CoreParameters int                `json:"core_parameters"`
	Layers         []LayerDescription `json:"layers"`
}

// Detail is one "key: value" line of a format's details.
type Detail struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// LayerDescription describes one layer.
type LayerDescription struct {
	In         int    `json:"in"`
	Out        int    `json:"out"`
	Parameters int    `json:"parameters"`
	Activation string `json:"activation"`
	// Scheme is the layer's quantisation (nn.Layer.Scheme), for int8 models.
	Scheme string `json:"scheme,omitempty"`
}

// Describe returns the Description of net, read from the file of info.
func Describe(net *nn.Network, info *Info) Description {
	j := Description{File: info.Path, Bytes: info.Size, Format: info.Format.String(), Sniffed: info.Sniffed,
		Details: []Detail{}, Inputs: net.InputSize(), Outputs: net.OutputSize(), Sizes: net.Sizes(),
		Parameters: net.NumParams(), CoreSizes: info.Core.Sizes(), CoreParameters: info.Core.NumParams()}
	for _, line := range strings.Split(strings.TrimRight(info.Summary, "\n"), "\n") {
		if key, value, ok := strings.Cut(line, ":"); ok {
			j.Details = append(j.Details, Detail{Key: key, Value: strings.TrimSpace(value)})
		}
	}
	for _, l := range net.Layers {
		j.Layers = append(j.Layers, LayerDescription{In: l.In(), Out: l.Out(), Parameters: l.Out() * (l.In() + 1), Activation: l.Act.Describe(), Scheme: l.Scheme()})
	}
	return j
}
