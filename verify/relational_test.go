package verify

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// monotonic returns the monotonicity property of VNN-COMP's
// monotonic_acasxu template on n inputs: x_f[0] <= x_g[0], x_f[i] =
// x_g[i] otherwise, both in box, unsafe y_g[k] < y_f[k] - slack.
func monotonic(box spec.Box, k int, slack float64) *spec.Relational {
	r := &spec.Relational{BoxF: box, BoxG: box}
	for i := range box.Dim() {
		l := spec.InputLink{I: i}
		if i == 0 {
			l.Hi = math.Inf(1)
		}
		r.Links = append(r.Links, l)
	}
	// y_g[k] - y_f[k] + slack < 0
	r.Unsafe = []spec.Conjunction{{{G: []spec.Term{{K: k, Coef: 1}}, F: []spec.Term{{K: k, Coef: -1}}, C: slack, Strict: true}}}
	return r
}

// sampleRelational evaluates r's unsafe condition in float64 at random
// pairs of its input set and returns the smallest margin phi found (see
// relSearch.attack): a Holds verdict needs it positive everywhere.
func sampleRelational(t *testing.T, f, g *nn.Network, r *spec.Relational, n int) float64 {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	best := math.Inf(1)
	for range n {
		xf := make([]float64, r.BoxF.Dim())
		for i := range xf {
			xf[i] = r.BoxF.Lo[i] + rng.Float64()*(r.BoxF.Hi[i]-r.BoxF.Lo[i])
		}
		xg := append([]float64(nil), xf...)
		if g != nil && !r.Single() {
			for _, l := range r.Links {
				if !l.Tied() {
					lo, hi := max(r.BoxG.Lo[l.I], xf[l.I]+l.Lo), min(r.BoxG.Hi[l.I], xf[l.I]+l.Hi)
					if lo > hi {
						continue
					}
					xg[l.I] = lo + rng.Float64()*(hi-lo)
				}
			}
		}
		yf, _ := f.Eval(xf)
		yg := yf
		if !r.Single() {
			yg, _ = g.Eval(xg)
		}
		phi := math.Inf(1)
		for _, c := range r.Unsafe {
			cv := math.Inf(-1)
			for _, a := range c {
				v := a.C
				for _, tm := range a.F {
					v += tm.Coef * yf[tm.K]
				}
				for _, tm := range a.G {
					v += tm.Coef * yg[tm.K]
				}
				cv = max(cv, v)
			}
			phi = min(phi, cv)
		}
		best = min(best, phi)
	}
	return best
}

func TestDecideRelational(t *testing.T) {
	f, err := randnet.New(rand.New(rand.NewPCG(3, 4)), []int{3, 8, 8, 2})
	if err != nil {
		t.Fatal(err)
	}
	box := spec.Box{Lo: []float64{-0.2, -0.1, 0}, Hi: []float64{0.2, 0.1, 0.05}}
	// y_0 >= 1e6
	single := &spec.Relational{BoxF: box, Unsafe: []spec.Conjunction{{{F: []spec.Term{{K: 0, Coef: -1}}, C: 1e6}}}}
	cases := []struct {
		name string
		r    *spec.Relational
		want Status // Unknown: either verdict, checked for soundness
	}{
		{"monotone output 0", monotonic(box, 0, 0), Unknown},
		{"monotone output 1", monotonic(box, 1, 0), Unknown},
		{"tied with slack", func() *spec.Relational {
			r := monotonic(box, 0, 0.5)
			r.Links[0].Hi = 0
			return r
		}(), Holds},
		{"one network, unreachable", single, Holds},
		{"one network, reachable", &spec.Relational{BoxF: box, Unsafe: []spec.Conjunction{
			{{F: []spec.Term{{K: 0, Coef: 1}}, C: 1e6}},                                  // false
			{{F: []spec.Term{{K: 1, Coef: -1}, {K: 0, Coef: 1}}, C: -1e6, Strict: true}}, // y0 - y1 < 1e6
		}}, Violated},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := DefaultOptions()
			o.Workers = 1
			o.MaxNodes = 20000
			res, err := DecideRelational(context.Background(), f, f, c.r, &o)
			if err != nil {
				t.Fatal(err)
			}
			if c.want != Unknown && res.Status != c.want {
				t.Fatalf("status %v (%v), want %v", res.Status, res.Reason, c.want)
			}
			switch res.Status {
			case Holds:
				if phi := sampleRelational(t, f, f, c.r, 2000); phi <= 0 {
					t.Fatalf("holds, but a sampled pair has margin %v", phi)
				}
			case Violated:
				p := res.Counterexample
				_, s, err := CheckRelational(f, f, p.XF, p.XG, c.r)
				if err != nil || s != Violated || !p.InSet {
					t.Fatalf("counterexample re-checks as %v (%v), in set %v", s, err, p.InSet)
				}
			default:
				t.Fatalf("unknown (%v) after %d nodes", res.Reason, res.Nodes)
			}
			t.Logf("%v in %d nodes", res.Status, res.Nodes)
		})
	}
}

func TestDecideRelationalUnsupported(t *testing.T) {
	f, _ := randnet.New(rand.New(rand.NewPCG(1, 2)), []int{2, 4, 1})
	g, _ := randnet.New(rand.New(rand.NewPCG(1, 2)), []int{2, 4, 4, 1})
	box := spec.Box{Lo: []float64{0, 0}, Hi: []float64{1, 1}}
	_, err := DecideRelational(context.Background(), f, g, monotonic(box, 0, 0), nil)
	if !errors.Is(err, ErrPairUnsupported) {
		t.Fatalf("error %v, want ErrPairUnsupported", err)
	}
}
