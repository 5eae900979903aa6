package soundness_test

import (
	"math"
	"math/big"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// High-precision evaluation. The certificate bounds the exact networks
// (the float64 weights taken as real numbers), not their float64
// evaluation, so a point whose float64 error is just above a bound is
// re-evaluated with bigPrec-bit arithmetic: dot products of float64 values
// are then exact for the depths here, and the elementary functions (exp,
// tanh, sigmoid, expm1) are computed to about 2^-(bigPrec-20) relative. The
// precision must resolve differences far below float64's smallest number
// (tanh(360 + 1e-12) - tanh(360) is about 1e-325, against values near 1),
// hence more than 2 * 1074 bits. A claim is violated when the
// high-precision value exceeds it by more than bigSlack of the magnitudes
// involved, i.e. for real.

const bigPrec = 2240

// bigSlack returns the slack of a high-precision comparison of quantities
// of magnitude mag: 2^-2100 mag, far above the precision and far below any
// float64 number.
func bigSlack(mag float64) *big.Float {
	s := newBig(mag)
	return s.SetMantExp(s, -2100)
}

func newBig(v float64) *big.Float { return new(big.Float).SetPrec(bigPrec).SetFloat64(v) }

// bigExpm1 returns e^x - 1 for x <= 0 to about 2^-(bigPrec-20) relative.
// Arguments below -3000 give -1 (e^-3000 < 2^-4300 is below the precision).
func bigExpm1(x *big.Float) *big.Float {
	if x.Sign() == 0 {
		return newBig(0)
	}
	if x.Cmp(newBig(-3000)) < 0 {
		return newBig(-1)
	}
	// Halve x m times to |y| < 2^-20, sum the Taylor series of expm1(y),
	// then double back with expm1(2y) = expm1(y) (expm1(y) + 2).
	m := max(0, x.MantExp(nil)+20)
	y := new(big.Float).SetPrec(bigPrec).SetMantExp(x, -m)
	sum := newBig(0)
	term := newBig(1)
	eps := new(big.Float).SetPrec(bigPrec).SetMantExp(newBig(1), -bigPrec-40)
	for k := 1; k < 2000; k++ {
		term.Mul(term, y)
		term.Quo(term, newBig(float64(k)))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	two := newBig(2)
	for range m {
		t := new(big.Float).SetPrec(bigPrec).Add(sum, two)
		sum.Mul(sum, t)
	}
	return sum
}

// bigAct returns act(s) in high precision.
func bigAct(a nn.Activation, s *big.Float) *big.Float {
	r := new(big.Float).SetPrec(bigPrec)
	switch a.Kind {
	case nn.ReLU:
		if s.Sign() < 0 {
			return r
		}
		return r.Set(s)
	case nn.LeakyReLU:
		if s.Sign() >= 0 {
			return r.Set(s)
		}
		return r.Mul(s, newBig(a.Alpha))
	case nn.HardTanh:
		switch {
		case s.Cmp(newBig(a.Lo)) < 0:
			return newBig(a.Lo)
		case s.Cmp(newBig(a.Hi)) > 0:
			return newBig(a.Hi)
		}
		return r.Set(s)
	case nn.ELU:
		if s.Sign() >= 0 {
			return r.Set(s)
		}
		return r.Mul(bigExpm1(s), newBig(a.Alpha))
	case nn.Tanh:
		// tanh|s| = -expm1(-2|s|) / (2 + expm1(-2|s|)).
		abs := new(big.Float).SetPrec(bigPrec).Abs(s)
		e := bigExpm1(new(big.Float).SetPrec(bigPrec).Mul(abs, newBig(-2)))
		den := new(big.Float).SetPrec(bigPrec).Add(e, newBig(2))
		r.Quo(e.Neg(e), den)
		if s.Sign() < 0 {
			r.Neg(r)
		}
		return r
	case nn.Sigmoid:
		// 1/(1+e^-s) for s >= 0; e^s/(1+e^s) for s < 0.
		abs := new(big.Float).SetPrec(bigPrec).Abs(s)
		e := bigExpm1(abs.Neg(abs))
		e.Add(e, newBig(1)) // e^-|s|
		den := new(big.Float).SetPrec(bigPrec).Add(e, newBig(1))
		if s.Sign() >= 0 {
			return r.Quo(newBig(1), den)
		}
		return r.Quo(e, den)
	}
	return r.Set(s)
}

// bigEval returns net(x) in high precision. A quantised (QDQ) network is
// evaluated by its float64 reference semantics instead, which its bounds
// cover (rounding is a step function: no precision makes it closer).
func bigEval(net *nn.Network, x []float64) []*big.Float {
	if net.Quantised() {
		y, _ := net.Eval(x)
		out := make([]*big.Float, len(y))
		for i, v := range y {
			out[i] = newBig(v)
		}
		return out
	}
	h := make([]*big.Float, len(x))
	for i, v := range x {
		h[i] = newBig(v)
	}
	for _, l := range net.Layers {
		raw := l.W.RawMatrix()
		nh := make([]*big.Float, raw.Rows)
		for i := range raw.Rows {
			row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
			s := newBig(l.B[i])
			t := new(big.Float).SetPrec(bigPrec)
			for j, w := range row {
				if w == 0 {
					continue
				}
				t.Mul(newBig(w), h[j])
				s.Add(s, t)
			}
			nh[i] = bigAct(l.Act, s)
		}
		h = nh
	}
	return h
}

// exactCheck re-evaluates the claim t at z in high precision and returns
// the excess of the error over the claim (> 0: a real violation), as a
// float64 approximation, with the high-precision error.
func (p *problem) exactCheck(t *target, z []float64) (excess, e float64) {
	x1, x2 := p.split(z)
	o1, o2 := bigEval(p.f1, x1), bigEval(p.f2, x2)
	_, _, m1 := evalTracked(p.f1, x1)
	_, _, m2 := evalTracked(p.f2, x2)
	mag := 1.0
	for j := range m1 {
		mag += m1[j] + m2[j]
	}
	slack := bigSlack(mag)
	d := make([]*big.Float, len(o1))
	for j := range o1 {
		d[j] = new(big.Float).SetPrec(bigPrec).Sub(o1[j], o2[j])
	}
	// sq is the squared measure (2-norm or C), or the measure itself for
	// the inf-norm.
	sq := newBig(0)
	var measure *big.Float
	switch {
	case p.c != nil:
		s := newBig(0)
		for j, c := range p.c {
			s.Add(s, new(big.Float).SetPrec(bigPrec).Mul(newBig(c), d[j]))
		}
		measure = s.Abs(s)
		sq.Mul(measure, measure)
	case p.norm == spec.NormInf:
		measure = newBig(0)
		for _, v := range d {
			a := new(big.Float).SetPrec(bigPrec).Abs(v)
			if a.Cmp(measure) > 0 {
				measure = a
			}
		}
		sq.Mul(measure, measure)
	default:
		for _, v := range d {
			sq.Add(sq, new(big.Float).SetPrec(bigPrec).Mul(v, v))
		}
		measure = new(big.Float).SetPrec(bigPrec).Sqrt(sq)
	}
	e, _ = measure.Float64()
	excess = math.Inf(-1)
	if !math.IsInf(t.bound, 1) {
		diff := new(big.Float).SetPrec(bigPrec).Sub(measure, newBig(t.bound))
		diff.Sub(diff, slack)
		excess, _ = diff.Float64()
		if diff.Sign() > 0 && excess == 0 {
			excess = math.SmallestNonzeroFloat64
		}
	}
	if t.gammas != nil {
		g := t.gammas
		rhs := newBig(g.Gamma)
		for i := range x1 {
			a, b := newBig(x1[i]), newBig(x2[i])
			dd := new(big.Float).SetPrec(bigPrec).Sub(a, b)
			for _, term := range [][2]*big.Float{{newBig(g.GammaX1), a}, {newBig(g.GammaX2), b}, {newBig(g.GammaX), dd}} {
				v := new(big.Float).SetPrec(bigPrec).Mul(term[1], term[1])
				rhs.Add(rhs, v.Mul(v, term[0]))
			}
		}
		// Compare the measures: sqrt(sq) - sqrt(rhs).
		diff := new(big.Float).SetPrec(bigPrec).Sub(new(big.Float).SetPrec(bigPrec).Sqrt(sq), new(big.Float).SetPrec(bigPrec).Sqrt(rhs))
		diff.Sub(diff, slack)
		v, _ := diff.Float64()
		if diff.Sign() > 0 && v == 0 {
			v = math.SmallestNonzeroFloat64
		}
		excess = max(excess, v)
	}
	return excess, e
}
