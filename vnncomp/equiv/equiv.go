// Package equiv decides the rows of a VNN-COMP two-network benchmark with
// nnbound's verifier: it is the vnncomp.Decider of "nnbound vnncomp".
//
// For each instance it reads the two model files (any format
// nn/modelfile reads) and the VNN-LIB 2.0 property (vnnlib.ReadPropertyFile),
// and decides it with verify.DecidePropertyModels (two chains: g's hidden
// neurons matched to f's, unless turned off; graphs: through the graphs) under the row's time limit. The
// outcome is
//
//	unsat    the property holds on the whole input box (proved)
//	sat      a counterexample, evaluated again on f and g as read from
//	         their files (not the aligned copy) and checked against the
//	         property as read (verify.CheckPoint) before it is written
//	timeout  the time limit came first
//	unknown  anything else: a node limit, a property this reading does
//	         not support, a point in the rounding sliver of a bound
//
// Rows of other kinds are decided by verify.DecideRelational (see
// relational.go): a VNN-LIB 2.0 file outside the equivalence subset
// (monotonicity, a disjunction of output constraints, input links; g is
// f's network under (equal-to f)) and a VNN-LIB 1 file of one network
// (its output assertions the unsafe condition, the witness
// ((X_0 v) ... (Y_0 v))).
//
// The witness of sat lists X_f, Y_f, X_g, Y_g (the declared variables in
// declaration order) with values representable in the declared types: a
// float32 input is rounded to float32 and the networks evaluated again
// there; if the rounded point leaves the box or no longer violates the
// property, the outcome is unknown.
package equiv

import (
	"context"
	"errors"
	"fmt"

	"github.com/nnbound/nnbound/align"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/verify"
	"github.com/nnbound/nnbound/vnncomp"
	"github.com/nnbound/nnbound/vnnlib"
)

// Options configures Decider.
type Options struct {
	// Verify holds the options of verify.DecideProperty.
	Verify verify.Options
	// NoAlign turns the neuron alignment off.
	NoAlign bool
}

// DefaultOptions returns verify's default options, with alignment.
func DefaultOptions() Options { return Options{Verify: verify.DefaultOptions()} }

// Detail is what an instance's log line records beside its result.
type Detail struct {
	Verify  *verify.Result `json:"verify,omitempty"`
	Aligned *align.Report  `json:"alignment,omitempty"`
}

// Decider returns the vnncomp.Decider that decides each instance as the
// package doc describes.
func Decider(opts Options) vnncomp.Decider {
	return func(ctx context.Context, in vnncomp.Instance) vnncomp.Outcome {
		prop, err := vnnlib.ReadPropertyFile(in.Spec)
		if err != nil {
			return vnncomp.Outcome{Result: vnncomp.Error, Err: err}
		}
		if prop.Pair == nil || prop.Pair.Relational != nil {
			return decideRelational(ctx, in, prop, opts)
		}
		p, ms, err := loadNets(in, prop.Pair)
		if err != nil {
			return vnncomp.Outcome{Result: vnncomp.Error, Err: err}
		}
		a := verify.AlignNeurons
		if opts.NoAlign {
			a = verify.KeepNeurons
		}
		ans, err := verify.DecidePropertyModels(ctx, ms.F, ms.G, ms.FC, ms.GC, &p.Property, a, &opts.Verify)
		if errors.Is(err, verify.ErrPairUnsupported) {
			return vnncomp.Outcome{Result: vnncomp.Unknown, Err: err}
		}
		if err != nil {
			return vnncomp.Outcome{Result: vnncomp.Error, Err: err}
		}
		return outcome(ans, ms, p)
	}
}

// Models are the two networks f and g of a row as graphs, with their
// chains of layers (nil for a graph that is not one).
type Models struct {
	F, G   *nn.Graph
	FC, GC *nn.Network
}

// loadNets reads the instance's networks f and g of the two-network
// property p, matched by the names the property declares (else taken in
// row order).
func loadNets(in vnncomp.Instance, p *vnnlib.Pair) (*vnnlib.Pair, Models, error) {
	var ms Models
	if len(in.Networks) != 2 {
		return nil, ms, fmt.Errorf("equiv: row %d names %d networks, want 2", in.Index, len(in.Networks))
	}
	paths := [2]string{in.Networks[0].Path, in.Networks[1].Path}
	if a, b := in.Networks[0].Name, in.Networks[1].Name; a != "" || b != "" {
		switch {
		case a == p.F.Name && b == p.G.Name:
		case a == p.G.Name && b == p.F.Name:
			paths[0], paths[1] = paths[1], paths[0]
		default:
			return nil, ms, fmt.Errorf("equiv: row %d names networks %q and %q, the property declares %q and %q", in.Index, a, b, p.F.Name, p.G.Name)
		}
	}
	var err error
	if ms.F, ms.FC, _, err = modelfile.LoadGraph(paths[0], modelfile.Options{}); err != nil {
		return nil, ms, err
	}
	if ms.G, ms.GC, _, err = modelfile.LoadGraph(paths[1], modelfile.Options{}); err != nil {
		return nil, ms, err
	}
	if err := p.CheckNetworks(ms.F, ms.G); err != nil {
		return nil, ms, err
	}
	return p, ms, nil
}
