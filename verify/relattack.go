package verify

import (
	"math"

	"github.com/nnbound/nnbound/search"
)

// attack looks for a counterexample in node n by sign-gradient descent
// on the joint network, from the node's centre and its parent's best
// point, on the objective
//
//	phi(z) = min over open conjunctions c of max over atoms a of c (a(z) + C_a),
//
// which is <= 0 where a conjunction holds. It returns the best point
// found and, when the point's pair (projected into the input set) passes
// CheckRelational as Violated, the counterexample.
func (s *relSearch) attack(n *relNode, open []int) ([]float64, *RelationalPoint) {
	tr := search.NewTrace(s.j.net)
	starts := [][]float64{centre(n.lo, n.hi)}
	if n.warm != nil {
		w := make([]float64, len(n.warm))
		for i, v := range n.warm {
			w[i] = clamp(v, n.lo[i], n.hi[i])
		}
		starts = append(starts, w)
	}
	var best []float64
	bestV := math.Inf(1)
	steps := max(s.opts.AttackSteps, 1)
	for _, z := range starts {
		cur := append([]float64(nil), z...)
		alpha := 0.25
		for step := 0; step <= steps; step++ {
			v, grad := s.objective(tr, cur, open)
			if v < bestV {
				best, bestV = append([]float64(nil), cur...), v
			}
			if v <= 0 {
				if cex := s.confirm(cur); cex != nil {
					return best, cex
				}
			}
			if step == steps {
				break
			}
			for i := range cur {
				cur[i] = clamp(cur[i]-alpha*(n.hi[i]-n.lo[i])*sign(grad[i]), n.lo[i], n.hi[i])
			}
			alpha *= 0.85
		}
	}
	return best, nil
}

// objective returns phi at z (see attack) and a (sub)gradient of it.
func (s *relSearch) objective(tr *search.Trace, z []float64, open []int) (float64, []float64) {
	y, err := tr.Reforward(z)
	if err != nil {
		panic(err) // the joint network's input size is z's by construction
	}
	phi, arg := math.Inf(1), -1
	for _, c := range open {
		cv, ca := math.Inf(-1), -1
		for _, ai := range s.j.conj[c] {
			if v := y[ai] + s.j.atoms[ai].C; v > cv {
				cv, ca = v, ai
			}
		}
		if cv < phi {
			phi, arg = cv, ca
		}
	}
	v := make([]float64, len(y))
	v[arg] = 1
	return phi, tr.Backward(v)
}

// confirm projects the joint point z into the input set and returns the
// pair's point if CheckRelational finds it Violated.
func (s *relSearch) confirm(z []float64) *RelationalPoint {
	xf, xg := s.j.inputs(s.r, z)
	p, st, err := CheckRelational(s.f, s.g, xf, xg, s.r)
	if err != nil || st != Violated {
		return nil
	}
	return p
}
