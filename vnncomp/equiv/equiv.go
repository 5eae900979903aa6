// Package equiv decides the rows of a VNN-COMP two-network benchmark with
// nnbound's verifier: it is the vnncomp.Decider of "nnbound vnncomp", and
// its Decide and DecideBox (align, then verify) serve "nnbound verify".
//
// For each instance it reads the two model files (any format
// nn/modelfile reads) and the VNN-LIB 2.0 property (vnnlib.ReadPairFile),
// matches g's hidden neurons to f's (package align, unless turned off),
// and decides the property with verify.DecidePair under the row's time
// limit. The outcome is
//
//	unsat    the property holds on the whole input box (proved)
//	sat      a counterexample, evaluated again on f and g as read from
//	         their files (not the aligned copy) and checked against the
//	         property as read (vnnlib.Pair.Violated) before it is written
//	timeout  the time limit came first
//	unknown  anything else: a node limit, a property this reading does
//	         not support, a point in the rounding sliver of a bound
//
// The witness of sat lists X_f, Y_f, X_g, Y_g (the declared variables in
// declaration order) with values representable in the declared types: a
// float32 input is rounded to float32 and the networks evaluated again
// there; if the rounded point leaves the box or no longer violates the
// property, the outcome is unknown.
package equiv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nnbound/nnbound/align"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/spec"
	"github.com/nnbound/nnbound/verify"
	"github.com/nnbound/nnbound/vnncomp"
	"github.com/nnbound/nnbound/vnnlib"
)

// Options configures Decider.
type Options struct {
	// Verify holds the options of verify.DecidePair.
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
		p, f, g, err := load(in)
		if err != nil {
			return vnncomp.Outcome{Result: vnncomp.Error, Err: err}
		}
		ans, err := Decide(ctx, f, g, p, opts)
		if errors.Is(err, verify.ErrPairUnsupported) {
			return vnncomp.Outcome{Result: vnncomp.Unknown, Err: err}
		}
		if err != nil {
			return vnncomp.Outcome{Result: vnncomp.Error, Err: err}
		}
		return outcome(ans, f, g, p)
	}
}

// Answer is the result of Decide and DecideBox: verify's result and the
// alignment applied (nil when turned off).
type Answer struct {
	Result  *verify.Result
	Aligned *align.Report
}

// MarshalJSON encodes the answer as verify's result with the alignment
// added under "alignment".
func (a *Answer) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(a.Result)
	if err != nil || a.Aligned == nil || len(b) < 2 || b[len(b)-1] != '}' {
		return b, err
	}
	r, err := json.Marshal(a.Aligned)
	if err != nil {
		return nil, err
	}
	out := append(b[:len(b)-1:len(b)-1], `,"alignment":`...)
	return append(append(out, r...), '}'), nil
}

// Decide aligns g to f over the property's box (unless opts.NoAlign) and
// decides the property with verify.DecidePair. The counterexample of a
// Violated result is re-evaluated on the aligned g; Witness evaluates it
// on g again.
func Decide(ctx context.Context, f, g *nn.Network, p *vnnlib.Pair, opts Options) (*Answer, error) {
	ga, ans, err := alignTo(f, g, p.Box, opts)
	if err != nil {
		return nil, err
	}
	ans.Result, err = verify.DecidePair(ctx, f, ga, p, &opts.Verify)
	return ans, err
}

// DecideBox is Decide for the question of verify.Decide: g is aligned to
// f over in.Box (unless opts.NoAlign), which keeps g's function, so the
// verdict is about g itself.
func DecideBox(ctx context.Context, f, g *nn.Network, in spec.Inputs, tol verify.Tolerance, opts Options) (*Answer, error) {
	ga, ans, err := alignTo(f, g, in.Box, opts)
	if err != nil {
		return nil, err
	}
	ans.Result, err = verify.Decide(ctx, f, ga, in, tol, &opts.Verify)
	return ans, err
}

// alignTo returns g aligned to f over box and the answer recording it, or
// g itself when opts.NoAlign.
func alignTo(f, g *nn.Network, box spec.Box, opts Options) (*nn.Network, *Answer, error) {
	if opts.NoAlign {
		return g, &Answer{}, nil
	}
	ga, rep, err := Align(f, g, box)
	return ga, &Answer{Aligned: rep}, err
}

// Align returns g with its hidden neurons matched to f's by align.Align,
// its function checked on box, and the report.
func Align(f, g *nn.Network, box spec.Box) (*nn.Network, *align.Report, error) {
	ao := align.DefaultOptions()
	ao.Lo, ao.Hi = box.Lo, box.Hi
	ga, rep, err := align.Align(f, g, ao)
	if err != nil {
		return nil, nil, fmt.Errorf("equiv: %w", err)
	}
	return ga, &rep, nil
}

// load reads the instance's property and its networks f and g, matched
// by the names the property declares (else taken in row order).
func load(in vnncomp.Instance) (*vnnlib.Pair, *nn.Network, *nn.Network, error) {
	v, err := vnnlib.VersionFile(in.Spec)
	if err != nil {
		return nil, nil, nil, err
	}
	if v != "2.0" {
		return nil, nil, nil, fmt.Errorf("equiv: %s is VNN-LIB %s, want a VNN-LIB 2.0 two-network property", in.Spec, v)
	}
	p, err := vnnlib.ReadPairFile(in.Spec)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(in.Networks) != 2 {
		return nil, nil, nil, fmt.Errorf("equiv: row %d names %d networks, want 2", in.Index, len(in.Networks))
	}
	paths := [2]string{in.Networks[0].Path, in.Networks[1].Path}
	if a, b := in.Networks[0].Name, in.Networks[1].Name; a != "" || b != "" {
		switch {
		case a == p.F.Name && b == p.G.Name:
		case a == p.G.Name && b == p.F.Name:
			paths[0], paths[1] = paths[1], paths[0]
		default:
			return nil, nil, nil, fmt.Errorf("equiv: row %d names networks %q and %q, the property declares %q and %q", in.Index, a, b, p.F.Name, p.G.Name)
		}
	}
	var nets [2]*nn.Network
	for i, path := range paths {
		if nets[i], _, err = modelfile.Load(path, modelfile.Options{}); err != nil {
			return nil, nil, nil, err
		}
	}
	if err := p.CheckNetworks(nets[0], nets[1]); err != nil {
		return nil, nil, nil, err
	}
	return p, nets[0], nets[1], nil
}
