package verify

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/nnbound/nnbound/align"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// Alignment says whether g's hidden neurons are matched to f's before a
// decision (DecideAligned, DecidePropertyAligned).
type Alignment int

// The alignments.
const (
	// AlignNeurons permutes g's hidden neurons to match f's (Align),
	// which keeps g's function: the verdict is about g itself, and
	// bounds of the difference are tighter where the neurons pair up.
	AlignNeurons Alignment = iota
	// KeepNeurons decides g as it is.
	KeepNeurons
)

// Answer is the result of an aligned decision: the result and the
// alignment applied (nil under KeepNeurons).
type Answer struct {
	Result  *Result
	Aligned *align.Report
}

// MarshalJSON encodes the answer as the result with the alignment added
// under "alignment".
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

// DecideAligned aligns g to f over in.Box (unless a is KeepNeurons) and
// decides the tolerance with Decide.
func DecideAligned(ctx context.Context, f, g *nn.Network, in spec.Inputs, tol spec.Tolerance, a Alignment, opts *Options) (*Answer, error) {
	ga, ans, err := alignTo(f, g, in.Box, a)
	if err != nil {
		return nil, err
	}
	ans.Result, err = Decide(ctx, f, ga, in, tol, opts)
	return ans, err
}

// DecidePropertyAligned aligns g to f over p.Box (unless a is
// KeepNeurons) and decides p with DecideProperty. The counterexample of
// a Violated result is evaluated on the aligned g, which computes g's
// function.
func DecidePropertyAligned(ctx context.Context, f, g *nn.Network, p *spec.Property, a Alignment, opts *Options) (*Answer, error) {
	ga, ans, err := alignTo(f, g, p.Box, a)
	if err != nil {
		return nil, err
	}
	ans.Result, err = DecideProperty(ctx, f, ga, p, opts)
	return ans, err
}

// alignTo returns g aligned to f over box and the answer recording it, or
// g itself under KeepNeurons.
func alignTo(f, g *nn.Network, box spec.Box, a Alignment) (*nn.Network, *Answer, error) {
	if a == KeepNeurons {
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
		return nil, nil, fmt.Errorf("verify: %w", err)
	}
	return ga, &rep, nil
}
