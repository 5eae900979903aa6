package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/prune"
)

func newPruneCmd() *cobra.Command {
	var pf pruneFlags
	return compressCommand(&cobra.Command{
		Use:   "prune MODEL (--neurons K | --sparsity S) [--remove] [--save OUT] [--certify]",
		Short: "Prune a network (and certify the error)",
		Long: `Prune writes a pruned copy of a network.

With --neurons K it prunes neurons as in the paper's pruning example: the K
neurons of the hidden layers after the first whose incoming weight rows
have the smallest 2-norms get those rows set to zero. Their biases are
kept, so each outputs the constant act(b). With --scope per-layer, K
neurons go in every such layer instead of K in all. With --remove the
neurons are deleted (row, bias and the next layer's column), which also
drops that constant. In a convolutional layer read as a structured layer,
the unit is a whole output channel: its norm is that of its kernel, and it
is zeroed or removed with its bias and the next layer's input channel.

With --sparsity S it sets the fraction S of the weights with the smallest
magnitudes to zero, in every layer (--scope per-layer, the default) or over
the whole network (--scope global). Biases are kept.

Ties are broken by position, so the result is always the same. Only the
network's own parameters are pruned: an NNet file's clipping and
normalisation stay as they are. The copy is saved with --save, in the
format of its extension (.onnx or .json). With --certify it certifies the
error between the network and the copy (then --save is optional).

A computation graph (residual Add, Concat, MaxPool, ...), and a chain
with convolutions (whose weights are shared by every output position, so
pruning acts on the kernels), is pruned in its dense maps and
convolutions: --sparsity over all their weights; --neurons
over the rows and output channels of those between the first and the last
(Layer in the report is the node). Zeroing works on any graph; --remove
works where a channel reaches the next dense map or convolution through
operations per channel only (activations, batch normalisation, pooling),
and otherwise says which node prevents it (a residual Add, a Concat, a
grouped convolution). The copy is saved as ONNX; --certify bounds the error
by bound propagation with input splitting (the SDP is for chains).`,
		Example: `  nnbound prune model.onnx --neurons 4 --save model-p4.onnx
  nnbound prune model.onnx --sparsity 0.5 --scope global --certify
  nnbound prune model.onnx --neurons 2 --remove --save small.json`,
	}, &pf, "pruned")
}

// pruneFlags are the flags choosing a pruning, bound onto copies of
// prune.DefaultNeuronOptions() and prune.DefaultWeightOptions():
//
//	--neurons K     prune K hidden neurons (the paper's pruning)
//	--sparsity S    zero the fraction S of the weights (magnitude pruning)
//	--scope SCOPE   global or per-layer
//	--remove        delete pruned neurons instead of zeroing their rows
type pruneFlags struct {
	neurons prune.NeuronOptions
	weights prune.WeightOptions
	scope   string
}

// register adds the flags to fs with the library's defaults.
func (f *pruneFlags) register(fs *pflag.FlagSet) {
	// --neurons or --sparsity must be given, so -h shows no default
	// for either: the amount is the question, not a setting.
	f.neurons, f.weights = prune.DefaultNeuronOptions(), prune.DefaultWeightOptions()
	f.neurons.Count, f.weights.Sparsity = 0, 0
	fs.IntVar(&f.neurons.Count, "neurons", 0, "prune `K` hidden neurons: those of the hidden layers after the first with the smallest incoming 2-norms (this or --sparsity is required)")
	fs.Float64Var(&f.weights.Sparsity, "sparsity", 0, "zero the fraction `S` (0 to 1) of the weights with the smallest magnitudes (this or --neurons is required)")
	fs.StringVar(&f.scope, "scope", "", fmt.Sprintf("global or per-layer (default %v for --neurons, %v for --sparsity)", f.neurons.Scope, f.weights.Scope))
	fs.BoolVar(&f.neurons.Remove, "remove", f.neurons.Remove, "with --neurons: delete the neurons (row, bias, outgoing column) instead of zeroing their rows")
}

// compression returns the pruning the flags say. Bad flags are usage
// errors.
func (f *pruneFlags) compression(fs *pflag.FlagSet) (compression, error) {
	byNeurons, byWeights := fs.Changed("neurons"), fs.Changed("sparsity")
	switch {
	case byNeurons && byWeights:
		return compression{}, usagef("--neurons and --sparsity do not go together: give one")
	case !byNeurons && !byWeights:
		return compression{}, usagef("prune needs one of --neurons K and --sparsity S")
	}
	var scope *prune.Scope
	if byNeurons {
		scope = &f.neurons.Scope
	} else {
		scope = &f.weights.Scope
	}
	if f.scope != "" {
		s, err := prune.ParseScope(f.scope)
		if err != nil {
			return compression{}, usagef("--scope %q: want global or per-layer", f.scope)
		}
		*scope = s
	}
	if byWeights {
		if f.neurons.Remove {
			return compression{}, usagef("--remove goes with --neurons, not --sparsity")
		}
		if err := f.weights.Validate(); err != nil {
			return compression{}, usagef("--sparsity %v: want a fraction from 0 to 1", f.weights.Sparsity)
		}
		return compression{Compression: experiment.PruneWeights(f.weights), byGraph: true}, nil
	}
	if f.neurons.Count < 1 {
		return compression{}, usagef("--neurons %d: want 1 or more", f.neurons.Count)
	}
	return compression{Compression: experiment.PruneNeurons(f.neurons), byGraph: true}, nil
}
