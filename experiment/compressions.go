package experiment

import (
	"fmt"
	"strconv"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/prune"
	"github.com/nnbound/nnbound/quantise"
)

// Compression is a compression of a network's core as quantise and prune
// make it: of a chain of layers and, where it has one, of a computation
// graph, with its name for the report (CompressionRecord.Compression).
type Compression struct {
	// What names the compression: "fixed point <inf,4> trunc".
	What string
	// Apply compresses a chain of layers.
	Apply func(*nn.Network) (*nn.Network, error)
	// ApplyGraph compresses a graph; nil when the compression is made of
	// chains only.
	ApplyGraph func(*nn.Graph) (*nn.Graph, error)
	// Neurons, if not nil, returns the neurons the last Apply or
	// ApplyGraph pruned.
	Neurons func() []prune.Neuron
}

// Pruned returns the neurons the last Apply or ApplyGraph pruned (nil
// for a compression that prunes none).
func (c Compression) Pruned() []prune.Neuron {
	if c.Neurons == nil {
		return nil
	}
	return c.Neurons()
}

// Record returns the record of c made of the core of the model file
// info into out, saved to saved ("" for not saved); call it once c has
// run.
func (c Compression) Record(info *modelfile.Info, out *modelfile.Compressed, saved string) *CompressionRecord {
	return NewCompressionRecord(info, c.What, out, saved, c.Pruned())
}

// Chain returns the copy of the chain of layers of the model file info
// made by c.Apply on its core (modelfile.Info.Compress), with the
// structure of g, the model's graph (nil for none), where c.ApplyGraph
// makes the same function of it (modelfile.Compressed.KeepStructure);
// lost reports that g's convolutions are kept as dense layers instead.
func (c Compression) Chain(info *modelfile.Info, g *nn.Graph) (out *modelfile.Compressed, lost bool, err error) {
	out, err = info.Compress(c.Apply)
	if err != nil {
		return nil, false, err
	}
	return out, out.KeepStructure(g, c.ApplyGraph), nil
}

// Graph returns the copy of g, the graph of the model file info, made by
// c.ApplyGraph (which must not be nil) and saved to save as ONNX ("" saves
// nothing), with its record.
func (c Compression) Graph(info *modelfile.Info, g *nn.Graph, save string) (*nn.Graph, *CompressionRecord, error) {
	out, err := c.ApplyGraph(g)
	if err != nil {
		return nil, nil, err
	}
	if save != "" {
		if err := modelfile.SaveGraph(save, out); err != nil {
			return nil, nil, err
		}
	}
	return out, NewGraphCompressionRecord(info, c.What, g, out, save, c.Pruned()), nil
}

// QuantiseFixed returns the fixed-point quantisation of the weights and
// biases by opts (quantise.Network, quantise.Graph).
func QuantiseFixed(opts quantise.Options) Compression {
	w, b := opts.Weights, opts.Biases
	what := fmt.Sprintf("weights %v; biases %v", w, b)
	if w == b {
		what = fmt.Sprintf("fixed point %v", w)
	}
	return Compression{What: what,
		Apply:      func(net *nn.Network) (*nn.Network, error) { return quantise.Network(net, opts) },
		ApplyGraph: func(g *nn.Graph) (*nn.Graph, error) { return quantise.Graph(g, opts) }}
}

// Float16 returns the rounding of every parameter to float16
// (quantise.Float16, quantise.Float16Graph).
func Float16() Compression {
	return Compression{What: "float16 (IEEE half precision, round to nearest even)",
		Apply: quantise.Float16, ApplyGraph: quantise.Float16Graph}
}

// PruneWeights returns magnitude pruning of the weights by o
// (prune.Weights, prune.WeightsGraph).
func PruneWeights(o prune.WeightOptions) Compression {
	what := fmt.Sprintf("magnitude pruning of %s of the weights (%v)", strconv.FormatFloat(o.Sparsity, 'g', -1, 64), o.Scope)
	return Compression{What: what,
		Apply: func(net *nn.Network) (*nn.Network, error) {
			out, _, err := prune.Weights(net, o)
			return out, err
		},
		ApplyGraph: func(g *nn.Graph) (*nn.Graph, error) {
			out, _, err := prune.WeightsGraph(g, o)
			return out, err
		}}
}

// PruneNeurons returns the pruning of o.Count neurons by o (prune.Neurons,
// prune.NeuronsGraph); its Neurons returns those the last run pruned.
func PruneNeurons(o prune.NeuronOptions) Compression {
	verb := "zeroed"
	if o.Remove {
		verb = "removed"
	}
	noun := "neurons"
	if o.Count == 1 {
		noun = "neuron"
	}
	var pruned []prune.Neuron
	return Compression{
		What: fmt.Sprintf("%d %s %s (%v, smallest incoming 2-norms)", o.Count, noun, verb, o.Scope),
		Apply: func(net *nn.Network) (*nn.Network, error) {
			out, p, err := prune.Neurons(net, o)
			pruned = p
			return out, err
		},
		ApplyGraph: func(g *nn.Graph) (*nn.Graph, error) {
			out, p, err := prune.NeuronsGraph(g, o)
			pruned = p
			return out, err
		},
		Neurons: func() []prune.Neuron { return pruned },
	}
}
