package verify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// ErrPairUnsupported reports a two-network property DecideProperty cannot
// decide: independent inputs (no X_f == X_g pairing), an output left
// unbounded on one side, or an asymmetric bound on a network whose last
// layer is not affine.
var ErrPairUnsupported = errors.New("property not supported")

// DecideProperty decides the two-network property p over f and g,
//
//	Lo_k <= g_k(x) - f_k(x) <= Hi_k  for every bounded output k, x in p.Box,
//
// by Decide on the symmetric form of each bound: with the centre
// c_k = (Lo_k + Hi_k)/2 and a radius r_k a little below (Hi_k - Lo_k)/2,
// the bias of g's last layer is lowered by c_k (the rounding of that
// subtraction taken off r_k) and Decide asks whether |g'_k - f_k| < r_k,
// which implies the property. A counterexample of Decide is checked again
// on f and g themselves against p as read (CheckPoint) and returned as
// Violated only when that check says so; otherwise the result is Unknown
// with Reason Precision (the point lies in the sliver between r_k and the
// bound, or within the rounding of the evaluation).
// Properties outside this reading wrap ErrPairUnsupported.
func DecideProperty(ctx context.Context, f, g *nn.Network, p *spec.Property, opts *Options) (*Result, error) {
	if f == nil || g == nil {
		return nil, fmt.Errorf("verify: a network is nil: %w", nn.ErrDimension)
	}
	return decidePair(p, f.OutputSize(), g.OutputSize(), func(tol spec.Tolerance, shift []float64) (*Result, error) {
		gs := g
		if shift != nil {
			var err error
			if gs, err = shiftOutputs(g, shift, tol.Eps); err != nil {
				return nil, err
			}
		}
		return Decide(ctx, f, gs, spec.Inputs{Box: p.Box}, tol, opts)
	}, func(x []float64) (*Point, Status, error) {
		return CheckPoint(f, g, x, x, PropertyCriterion(p))
	})
}

// DecidePropertyGraph decides the two-network property p over networks
// given as graphs, as DecideProperty does for chains, by DecideGraph on
// the symmetric form of each bound: an asymmetric range is decided about
// its centre c_k, subtracted from g's outputs by a node appended to a
// copy of g (y - c, c exact). A counterexample is checked again on f and
// g themselves against p as read (CheckPointGraph).
func DecidePropertyGraph(ctx context.Context, f, g *nn.Graph, p *spec.Property, opts *Options) (*Result, error) {
	if f == nil || g == nil {
		return nil, fmt.Errorf("verify: a network is nil: %w", nn.ErrDimension)
	}
	return decidePair(p, f.OutputSize(), g.OutputSize(), func(tol spec.Tolerance, shift []float64) (*Result, error) {
		gs := g
		if shift != nil {
			gs = g.Clone()
			ones, minus := make([]float64, len(shift)), make([]float64, len(shift))
			for k, c := range shift {
				ones[k], minus[k] = 1, -c
			}
			last := len(gs.Nodes)
			gs.Nodes = append(gs.Nodes, nn.Node{Op: &nn.Affine{M: &nn.Scale{S: ones}, B: minus},
				Inputs: []int{last}, Shape: slices.Clone(gs.Shape(last)), Name: "property centre"})
		}
		return DecideGraph(ctx, f, gs, spec.Inputs{Box: p.Box}, tol, opts)
	}, func(x []float64) (*Point, Status, error) {
		return CheckPointGraph(f, g, x, x, PropertyCriterion(p))
	})
}

// decidePair decides p over networks of m and mg outputs: decide answers
// its symmetric question (pairTolerance: the tolerance, and the centres
// to subtract from g's outputs), and a counterexample is kept as Violated
// only when check, on the networks as read, says so and it lies in p's
// box; otherwise the result is Unknown with Reason Precision.
func decidePair(p *spec.Property, m, mg int, decide func(spec.Tolerance, []float64) (*Result, error), check func(x []float64) (*Point, Status, error)) (*Result, error) {
	tol, shift, err := pairTolerance(m, mg, p)
	if err != nil {
		return nil, err
	}
	res, err := decide(tol, shift)
	if err != nil {
		return nil, err
	}
	res.Property = p
	if res.Status != Violated {
		return res, nil
	}
	x := res.Counterexample.X
	pt, s, err := check(x)
	if err != nil {
		return nil, err
	}
	if s != Violated || !p.Box.Contains(x) {
		res.Status, res.Reason, res.Counterexample = Unknown, Precision, nil
		return res, nil
	}
	res.Counterexample, res.Worst = pt, pt
	return res, nil
}

// pairTolerance returns the per-output tolerance of the symmetric
// question of p over networks of m and mg outputs (see DecideProperty)
// and the centres to subtract from g's outputs (nil for none); a
// subtraction's rounding is not yet taken off the tolerance.
func pairTolerance(m, mg int, p *spec.Property) (spec.Tolerance, []float64, error) {
	tol := spec.Tolerance{Norm: spec.PerOutput, Eps: make([]float64, m)}
	if !p.Same {
		return tol, nil, fmt.Errorf("verify: the property's inputs of f and g are independent: %w", ErrPairUnsupported)
	}
	for k := range tol.Eps {
		tol.Eps[k] = 1 // not compared unless bounded below
	}
	var shift []float64
	for _, b := range p.Outputs {
		if b.K < 0 || b.K >= m || mg != m {
			return tol, nil, fmt.Errorf("verify: the property bounds output %d (line %d), the networks return %d and %d: %w", b.K, b.Line, m, mg, nn.ErrDimension)
		}
		if math.IsInf(b.Lo, 0) || math.IsInf(b.Hi, 0) {
			return tol, nil, fmt.Errorf("verify: output %d is bounded on one side only (line %d): %w", b.K, b.Line, ErrPairUnsupported)
		}
		if !(b.Lo < b.Hi) {
			return tol, nil, fmt.Errorf("verify: output %d has an empty or single-point range [%v, %v] (line %d): %w", b.K, b.Lo, b.Hi, b.Line, ErrPairUnsupported)
		}
		tol.Outputs = append(tol.Outputs, b.K)
		if eps, ok := b.Eps(); ok {
			tol.Eps[b.K] = eps
			continue
		}
		c := b.Lo/2 + b.Hi/2
		if c != 0 && shift == nil {
			shift = make([]float64, m)
		}
		if c != 0 {
			shift[b.K] = c
		}
		// [c - r, c + r] within [Lo, Hi]: each difference rounded down.
		tol.Eps[b.K] = min(outward.SubDown(b.Hi, c), outward.SubDown(c, b.Lo))
	}
	if len(tol.Outputs) == 0 {
		return tol, nil, fmt.Errorf("verify: the property bounds no output: %w", ErrPairUnsupported)
	}
	return tol, shift, nil
}

// shiftOutputs returns a copy of g computing g(x) - shift (up to the
// rounding of the new bias, which is subtracted from eps).
func shiftOutputs(g *nn.Network, shift, eps []float64) (*nn.Network, error) {
	gs := g.Clone()
	last := &gs.Layers[len(gs.Layers)-1]
	if last.Act.Kind != nn.Identity || last.Post != nil || last.Pre != nil {
		return nil, fmt.Errorf("verify: an asymmetric output bound needs g's last layer affine: %w", ErrPairUnsupported)
	}
	for k, c := range shift {
		if c == 0 {
			continue
		}
		s, e := outward.TwoSum(last.B[k], -c) // s + e == b - c exactly
		last.B[k] = s
		eps[k] = outward.SubDown(eps[k], math.Abs(e))
		if !(eps[k] > 0) {
			return nil, fmt.Errorf("verify: output %d's range is too narrow for its centre %v: %w", k, c, ErrPairUnsupported)
		}
	}
	return gs, nil
}
