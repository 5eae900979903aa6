package soundness_test

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// TestAttentionCampaign certifies random small attention blocks
// (randnet.Attention: 2 to 4 tokens, widths 4 to 16, one or two heads,
// LayerNorm, softmax, GELU, residual Adds) against a perturbed, FB-k or
// float16 copy of themselves on random boxes, with certify.BoundGraph in
// real or float32 arithmetic, for the 2-norm, the inf-norm or one output,
// in up to four pieces, and attacks every certified bound (the whole
// box's and each piece's): dense sampling (points, corners and their
// mixtures) and a gradient-free local search from the best points
// (random steps, accepted when they raise the error, the step adapted by
// the one-fifth rule). A float32 certificate is also attacked with
// nn.Graph.EvalFloat32 of both blocks. The certificate's own maximiser
// must re-evaluate to its observed error. A certificate whose bound
// propagation overflows claims no bound and is not counted. NNBOUND_LONG=1
// runs instances until 2,000 are certified (at most 3,000), else until
// 16 are (at most 30).
func TestAttentionCampaign(t *testing.T) {
	want, maxRuns := 16, 30
	if os.Getenv("NNBOUND_LONG") == "1" {
		want, maxRuns = 2000, 3000
	}
	runs, certified, violations, closest := 0, 0, 0, 0.0
	for ; runs < maxRuns && certified < want; runs++ {
		run := runs
		in := newAttnInstance(uint64(run))
		c, err := certify.BoundGraph(context.Background(), in.g1, in.g2, spec.Inputs{Box: in.box}, in.q, in.opts)
		if err != nil {
			t.Fatalf("%v: %v", in, err)
		}
		if !c.Certified() {
			t.Logf("%v: not certified (%v: %s)", in, c.Status, c.Reason)
			continue
		}
		certified++
		if c.X1 != nil {
			if e, tol := in.errorAt(c.X1, false); math.Abs(e-c.ObservedError) > tol {
				t.Errorf("%v: the observed error %v re-evaluates to %v", in, c.ObservedError, e)
			}
		}
		claims := []attnClaim{{in.box, c.Bound}}
		for _, p := range c.Pieces {
			claims = append(claims, attnClaim{spec.Box{Lo: p.Lo1, Hi: p.Hi1}, p.Bound})
		}
		for k, cl := range claims {
			worst, x, tol := in.attack(cl)
			if worst > cl.bound+tol {
				violations++
				t.Errorf("%v, claim %d: error %v above the bound %v at %v", in, k, worst, cl.bound, x)
			}
			if cl.bound > 0 {
				closest = max(closest, worst/cl.bound)
			}
		}
		if violations > 10 {
			t.Fatal("too many violations")
		}
	}
	t.Logf("%d instances, %d certified, %d violations; the attacks reached at most %.3g of a bound",
		runs, certified, violations, closest)
	if certified < want {
		t.Errorf("only %d of %d instances certified, want %d", certified, runs, want)
	}
}

// attnInstance is one instance of the attention campaign.
type attnInstance struct {
	seed                 uint64
	tokens, width, heads int
	copy                 string
	g1, g2               *nn.Graph
	box                  spec.Box
	q                    spec.Quantity
	opts                 certify.Options
	rng                  *rand.Rand
}

// attnClaim is a certified bound on a box.
type attnClaim struct {
	box   spec.Box
	bound float64
}

// String describes the instance for a failure message.
func (in *attnInstance) String() string {
	return fmt.Sprintf("seed %d (%d tokens, width %d, %d heads, %s copy, %v, %v, %d pieces at most)",
		in.seed, in.tokens, in.width, in.heads, in.copy, in.q, in.opts.Arith, in.opts.Refine.MaxPieces)
}

// newAttnInstance draws instance seed.
func newAttnInstance(seed uint64) *attnInstance {
	r := rand.New(rand.NewPCG(seed, 0xa7e))
	in := &attnInstance{seed: seed, heads: 1 + r.IntN(2), tokens: 2 + r.IntN(3), rng: rand.New(rand.NewPCG(seed, 0xa77))}
	in.width = min(16, max(4, in.heads*(2+r.IntN(7))))
	in.g1 = randnet.Attention(r, in.tokens, in.width, in.heads)
	var err error
	switch k := r.IntN(4); k {
	case 0, 1:
		in.copy = "perturbed"
		in.g2 = jittered(r, in.g1, math.Pow(10, -4+2*r.Float64()))
	case 2:
		fb := 4 + r.IntN(7)
		in.copy = fmt.Sprintf("FB-%d", fb)
		o := quantise.DefaultOptions()
		o.Weights.FracBits, o.Biases.FracBits = fb, fb
		in.g2, err = quantise.Graph(in.g1, o)
	default:
		in.copy = "float16"
		in.g2, err = quantise.Float16Graph(in.g1)
	}
	if err != nil {
		panic(err)
	}
	n := in.g1.InputSize()
	in.box = spec.Box{Lo: make([]float64, n), Hi: make([]float64, n)}
	rad, scale := math.Pow(10, -3+2.5*r.Float64()), math.Pow(10, -0.5+r.Float64())
	for i := range n {
		c := scale * r.NormFloat64()
		in.box.Lo[i], in.box.Hi[i] = c-rad, c+rad
	}
	switch k := r.IntN(3); k {
	case 0:
		in.q = spec.Quantity{Norm: spec.Norm2}
	case 1:
		in.q = spec.Quantity{Norm: spec.NormInf}
	default:
		in.q = spec.Quantity{Norm: spec.Norm2, C: make([]float64, in.g1.OutputSize())}
		in.q.C[r.IntN(len(in.q.C))] = 1
	}
	in.opts = certify.DefaultOptions()
	in.opts.Refine.TimeBudget = 0 // nothing depends on the clock
	in.opts.Refine.MaxPieces = 1 + r.IntN(4)
	in.opts.Seed = seed
	if r.IntN(4) == 0 {
		in.opts.Arith = certify.ArithFloat32
	}
	return in
}

// jittered returns g with every weight, scale and bias times 1 + rel z.
func jittered(r *rand.Rand, g *nn.Graph, rel float64) *nn.Graph {
	c := g.Clone()
	for _, n := range c.Nodes {
		if a, ok := n.Op.(*nn.Affine); ok {
			for _, v := range [][]float64{a.Weights(), a.B} {
				for i := range v {
					v[i] *= 1 + rel*r.NormFloat64()
				}
			}
		}
	}
	return c
}

// errorAt returns the measured quantity at x, evaluated in float64 (or
// with both blocks' EvalFloat32), and the noise of its float64 evaluation.
func (in *attnInstance) errorAt(x []float64, f32 bool) (e, tol float64) {
	eval := (*nn.Graph).Eval
	if f32 {
		eval = (*nn.Graph).EvalFloat32
	}
	y1, err1 := eval(in.g1, x)
	y2, err2 := eval(in.g2, x)
	if err1 != nil || err2 != nil {
		panic("soundness: evaluation failed")
	}
	mag := 0.0
	for j := range y1 {
		d := y1[j] - y2[j]
		mag = max(mag, math.Abs(y1[j]), math.Abs(y2[j]))
		switch {
		case in.q.C != nil:
			e += in.q.C[j] * d
		case in.q.Norm == spec.NormInf:
			e = max(e, math.Abs(d))
		default:
			e += d * d
		}
	}
	switch {
	case in.q.C != nil:
		e = math.Abs(e)
	case in.q.Norm == spec.Norm2:
		e = math.Sqrt(e)
	}
	return e, 1e-12 * (1 + mag)
}

// attack returns the largest error it finds on the claim's box, where,
// and the evaluation noise there.
func (in *attnInstance) attack(cl attnClaim) (worst float64, at []float64, tol float64) {
	modes := []bool{false}
	if in.opts.Arith == certify.ArithFloat32 {
		modes = append(modes, true)
	}
	worst = math.Inf(-1)
	for _, f32 := range modes {
		obj := func(x []float64) float64 {
			e, t := in.errorAt(x, f32)
			if e-t > worst-tol {
				worst, at, tol = e, slices.Clone(x), t
			}
			return e
		}
		type start struct {
			x []float64
			e float64
		}
		var best []start
		for k := range 300 {
			x := in.point(cl.box, k)
			best = append(best, start{x, obj(x)})
		}
		slices.SortFunc(best, func(a, b start) int { return cmp.Compare(b.e, a.e) })
		for _, s := range best[:3] {
			in.climb(cl.box, s.x, s.e, 150, obj)
		}
	}
	return worst, at, tol
}

// point returns sample k of the box: a corner, the centre of a face, a
// uniform point, or a mixture of a corner and a uniform point.
func (in *attnInstance) point(b spec.Box, k int) []float64 {
	r := in.rng
	x := make([]float64, len(b.Lo))
	for i := range x {
		u := r.Float64()
		switch k % 4 {
		case 0: // corner
			u = float64(r.IntN(2))
		case 1: // mostly at the ends
			if r.IntN(4) > 0 {
				u = float64(r.IntN(2))
			}
		case 2: // near the ends
			u = math.Pow(u, 4)
			if r.IntN(2) == 0 {
				u = 1 - u
			}
		}
		x[i] = b.Lo[i] + u*(b.Hi[i]-b.Lo[i])
	}
	return x
}

// climb maximises obj on the box from x (of value e) by random steps
// within the box, for evals evaluations: a step is taken when it raises
// obj, and its size grows after a success and shrinks after four
// failures (the one-fifth rule); some steps move one input to an end.
func (in *attnInstance) climb(b spec.Box, x []float64, e float64, evals int, obj func([]float64) float64) {
	r := in.rng
	sigma := 0.3
	y := make([]float64, len(x))
	x = slices.Clone(x)
	for range evals {
		copy(y, x)
		if r.IntN(4) == 0 {
			i := r.IntN(len(y))
			y[i] = []float64{b.Lo[i], b.Hi[i]}[r.IntN(2)]
		} else {
			for i := range y {
				w := b.Hi[i] - b.Lo[i]
				y[i] = min(b.Hi[i], max(b.Lo[i], y[i]+sigma*w*r.NormFloat64()))
			}
		}
		if v := obj(y); v > e {
			x, y, e = y, x, v
			sigma = min(1, sigma*2)
		} else {
			sigma = max(1e-4, sigma*math.Pow(2, -0.25))
		}
	}
}
