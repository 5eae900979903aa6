package experiment

import (
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/prune"
	"github.com/nnbound/nnbound/report"
)

// CompressionRecord is the JSON form of the report of quantise and prune:
// the model, the compression, the sizes and the change of parameters.
// Changed, Zeroed, LargestChange and TotalChange compare the parameters
// of the core networks, and are null when the shapes differ (pruning
// with --remove).
type CompressionRecord struct {
	Model          string         `json:"model"`
	Format         string         `json:"format"`
	Compression    string         `json:"compression"`
	Sizes          []int          `json:"sizes"`
	CompressedSize []int          `json:"compressed_sizes"`
	Parameters     int            `json:"parameters"`
	Changed        *int           `json:"changed"`
	Zeroed         *int           `json:"zeroed"`
	LargestChange  report.Number  `json:"largest_change"`
	TotalChange    report.Number  `json:"total_change"`
	Saved          string         `json:"saved"`
	PrunedNeurons  []NeuronRecord `json:"pruned_neurons,omitempty"`
}

// NeuronRecord is a pruned neuron (0-based layer and index).
type NeuronRecord struct {
	Layer int     `json:"layer"`
	Index int     `json:"neuron"`
	Norm  float64 `json:"norm"`
}

// NewCompressionRecord returns the record of the compression what of the
// core network core into compressed, read from model in format: diff
// compares their parameters (nil when the shapes differ), saved is the
// file written ("" for none) and pruned the neurons pruned, if any.
func NewCompressionRecord(model, format, what string, core, compressed *nn.Network, diff *nn.Diff,
	saved string, pruned []prune.Neuron) *CompressionRecord {
	j := &CompressionRecord{Model: model, Format: format, Compression: what,
		Sizes: core.Sizes(), CompressedSize: compressed.Sizes(), Parameters: core.NumParams(),
		LargestChange: nan(), TotalChange: nan(), Saved: saved}
	if diff != nil {
		d := *diff
		j.Changed, j.Zeroed = &d.Changed, &d.Zeroed
		j.LargestChange, j.TotalChange = report.Number(d.MaxAbs), report.Number(d.SumAbs)
	}
	for _, n := range pruned {
		j.PrunedNeurons = append(j.PrunedNeurons, NeuronRecord{Layer: n.Layer, Index: n.Index, Norm: n.Norm})
	}
	return j
}
