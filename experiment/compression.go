package experiment

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
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
	// CompressedParameters counts the compressed core's parameters (text
	// only: JSON has them as "parameters" when the shapes agree).
	CompressedParameters int `json:"-"`
}

// NeuronRecord is a pruned neuron (0-based layer and index).
type NeuronRecord struct {
	Layer int     `json:"layer"`
	Index int     `json:"neuron"`
	Norm  float64 `json:"norm"`
}

// NewCompressionRecord returns the record of the compression what of the
// core network of the model file info into c: saved is the file written
// ("" for none) and pruned the neurons pruned, if any. The parameters are
// compared (c.Diff) only when the shapes are the same.
func NewCompressionRecord(info *modelfile.Info, what string, c *modelfile.Compressed, saved string, pruned []prune.Neuron) *CompressionRecord {
	core, compressed := info.Core, c.Core
	j := &CompressionRecord{Model: info.Path, Format: info.Format.String(), Compression: what,
		Sizes: core.Sizes(), CompressedSize: compressed.Sizes(), Parameters: core.NumParams(),
		CompressedParameters: compressed.NumParams(),
		LargestChange:        nan(), TotalChange: nan(), Saved: saved}
	if c.Graph != nil { // the graph's parameters (a kernel once), KeepStructure
		j.Parameters, j.CompressedParameters = c.Diff.Params, c.Graph.NumParams()
	}
	if c.SameShape {
		d := c.Diff
		j.Changed, j.Zeroed = &d.Changed, &d.Zeroed
		j.LargestChange, j.TotalChange = report.Number(d.MaxAbs), report.Number(d.SumAbs)
	}
	for _, n := range pruned {
		j.PrunedNeurons = append(j.PrunedNeurons, NeuronRecord{Layer: n.Layer, Index: n.Index, Norm: n.Norm})
	}
	return j
}

// WriteText prints the record for people, model being the model's
// description: what changed, where the copy was saved and the neurons
// pruned, if any.
func (j *CompressionRecord) WriteText(w io.Writer, model string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "model:\t%s\n", model)
	fmt.Fprintf(tw, "compression:\t%s\n", j.Compression)
	if j.Changed != nil {
		fmt.Fprintf(tw, "changed:\t%d of %d parameters (%d set to zero)\n", *j.Changed, j.Parameters, *j.Zeroed)
		fmt.Fprintf(tw, "largest change:\t%s\n", strconv.FormatFloat(float64(j.LargestChange), 'g', -1, 64))
		fmt.Fprintf(tw, "total change:\t%s (sum of |changes|)\n", strconv.FormatFloat(float64(j.TotalChange), 'g', -1, 64))
	} else {
		fmt.Fprintf(tw, "sizes:\t%s -> %s\n", nn.FormatSizes(j.Sizes), nn.FormatSizes(j.CompressedSize))
		fmt.Fprintf(tw, "parameters:\t%d -> %d\n", j.Parameters, j.CompressedParameters)
	}
	if j.Saved != "" {
		fmt.Fprintf(tw, "saved:\t%s\n", j.Saved)
	}
	if err := tw.Flush(); err != nil || len(j.PrunedNeurons) == 0 {
		return err
	}
	fmt.Fprintln(w, "pruned neurons (layer, neuron, incoming 2-norm; 0-based):")
	for _, n := range j.PrunedNeurons {
		if _, err := fmt.Fprintf(w, "  %d %d %s\n", n.Layer, n.Index, strconv.FormatFloat(n.Norm, 'g', 6, 64)); err != nil {
			return err
		}
	}
	return nil
}
