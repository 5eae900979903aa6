package modelfile

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

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
	// Nodes describes a graph that is not a chain (Layers is then empty).
	Nodes []NodeDescription `json:"nodes,omitempty"`

	// For WriteText: every line of the details, the input quantiser (if
	// any) and whether the core differs from the network.
	lines          []Detail
	inputQuantiser string
	hasCore        bool
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
	j.addSummary(info.Summary)
	if net.Input != nil {
		j.inputQuantiser = fmt.Sprint(net.Input)
	}
	j.hasCore = info.Core != net
	for _, l := range net.Layers {
		j.Layers = append(j.Layers, LayerDescription{In: l.In(), Out: l.Out(), Parameters: l.NumParams(), Activation: l.Act.Describe(), Scheme: l.Scheme()})
	}
	return j
}

// addSummary adds the format's "key: value" lines.
func (d *Description) addSummary(summary string) {
	for _, line := range strings.Split(strings.TrimRight(summary, "\n"), "\n") {
		key, value, ok := strings.Cut(line, ":")
		detail := Detail{Key: key, Value: strings.TrimSpace(value)}
		if ok {
			d.Details = append(d.Details, detail)
		}
		d.lines = append(d.lines, detail)
	}
}

// WriteText prints d for people ("nnbound inspect"): one "key: value" line
// per fact, then a table of the layers.
func (d *Description) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "file:\t%s\n", d.File)
	fmt.Fprintf(tw, "size:\t%d bytes\n", d.Bytes)
	if d.Sniffed {
		fmt.Fprintf(tw, "note:\tformat recognised from the content, not the extension\n")
	}
	for _, l := range d.lines {
		fmt.Fprintf(tw, "%s:\t%s\n", l.Key, l.Value)
	}
	fmt.Fprintf(tw, "inputs:\t%d\n", d.Inputs)
	fmt.Fprintf(tw, "outputs:\t%d\n", d.Outputs)
	if d.Sizes != nil {
		fmt.Fprintf(tw, "sizes:\t%s\n", nn.FormatSizes(d.Sizes))
	}
	fmt.Fprintf(tw, "parameters:\t%d\n", d.Parameters)
	if d.inputQuantiser != "" {
		fmt.Fprintf(tw, "input quantiser:\t%s\n", d.inputQuantiser)
	}
	if d.hasCore {
		fmt.Fprintf(tw, "core network:\t%s, %d parameters (what quantise and prune compress)\n", nn.FormatSizes(d.CoreSizes), d.CoreParameters)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if d.Nodes != nil {
		return d.writeNodes(w)
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "layer\tin\tout\tparameters\t  activation\n")
	for k, l := range d.Layers {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t  %s\n", k, l.In, l.Out, l.Parameters, l.Activation)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for k, l := range d.Layers {
		if l.Scheme != "" {
			if _, err := fmt.Fprintf(w, "  layer %d quantisation: %s\n", k, l.Scheme); err != nil {
				return err
			}
		}
	}
	return nil
}
