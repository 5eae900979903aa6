package verify

import (
	"math"

	"github.com/nnbound/nnbound/spec"
)

// point evaluates both networks at x with nn.Network.Eval, sharing no code
// with the attack that found x, and returns the difference as the
// tolerance measures it.
func (d *decider) point(x []float64) *Point {
	xg := d.in.X2(x)
	yf, err := d.f.Eval(x)
	if err != nil {
		panic(err) // the dimensions were checked by Decide
	}
	yg, err := d.g.Eval(xg)
	if err != nil {
		panic(err)
	}
	p := &Point{X: append([]float64(nil), x...), F: yf, G: yg, Diff: make([]float64, len(yf))}
	if d.in.Pairing != spec.SameInput {
		p.XG = append([]float64(nil), xg...)
	}
	for k := range yf {
		p.Diff[k] = yg[k] - yf[k]
	}
	switch d.tol.Norm {
	case Norm2:
		p.Measure = norm2(p.Diff)
	case NormInf:
		for _, v := range p.Diff {
			p.Measure = max(p.Measure, math.Abs(v))
		}
	default:
		for _, k := range d.compared {
			p.Measure = max(p.Measure, math.Abs(p.Diff[k]))
		}
	}
	return p
}
