package experiment

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
	"github.com/nnbound/nnbound/verify"
)

// GraphPair is one benchmark pair of graph networks (a model and its
// compressed copy) with the centres of the L-inf balls it is measured on:
// each ball has radius Radius, clipped to [Lo, Hi] on every input.
type GraphPair struct {
	Name    string
	F, G    *nn.Graph
	Centres [][]float64
	Radius  float64
	Lo, Hi  float64
}

// GraphRow is the measurement of one ball of a GraphPair: the certified
// bound of ||f(x) - g(x)||_2 (certify.BoundGraph), the largest error the
// search found, their ratio and the time taken; with Verify, the verdicts
// of verify at twice and half the error found (verify.DecideGraph) and
// their times.
type GraphRow struct {
	Pair                   string
	Centre                 int
	Bound, Found, Ratio    float64
	Pieces                 int
	Seconds                float64
	Verified               bool
	AtTwice, AtHalf        verify.Status
	TwiceSeconds, HalfSecs float64
}

// GraphOptions says how GraphPair.Measure measures a ball.
type GraphOptions struct {
	// Certify are the options of certify.BoundGraph.
	Certify certify.Options
	// Verify, when positive, also runs verify at twice and half the error
	// found, each stopped after this long.
	Verify time.Duration
}

// Ball returns the box of ball i.
func (p *GraphPair) Ball(i int) spec.Box { return spec.Ball(p.Centres[i], p.Radius, p.Lo, p.Hi) }

// Measure certifies ball i (and decides it, with opts.Verify).
func (p *GraphPair) Measure(ctx context.Context, i int, opts GraphOptions) (*GraphRow, error) {
	in := spec.Inputs{Box: p.Ball(i), Pairing: spec.SameInput}
	start := time.Now()
	c, err := certify.BoundGraph(ctx, p.F, p.G, in, spec.Quantity{Norm: spec.Norm2}, opts.Certify)
	if err != nil {
		return nil, fmt.Errorf("%s, ball %d: %w", p.Name, i, err)
	}
	r := &GraphRow{Pair: p.Name, Centre: i, Bound: c.Bound, Found: c.ObservedError, Ratio: c.Ratio(),
		Pieces: max(1, len(c.Pieces)), Seconds: time.Since(start).Seconds()}
	if opts.Verify <= 0 {
		return r, nil
	}
	r.Verified = true
	for _, k := range []struct {
		scale float64
		st    *verify.Status
		secs  *float64
	}{{2, &r.AtTwice, &r.TwiceSeconds}, {0.5, &r.AtHalf, &r.HalfSecs}} {
		eps := k.scale * c.ObservedError
		if !(eps > 0) || math.IsInf(eps, 0) {
			continue
		}
		vctx, cancel := context.WithTimeout(ctx, opts.Verify)
		vo := verify.DefaultOptions()
		res, err := verify.DecideGraph(vctx, p.F, p.G, in, spec.Tolerance{Norm: spec.Norm2, Eps: []float64{eps}}, &vo)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("%s, ball %d: %w", p.Name, i, err)
		}
		*k.st, *k.secs = res.Status, res.Seconds
	}
	return r, nil
}
