// Package boundstest provides random networks of every activation and
// helpers to check enclosures against sampled evaluations, for the tests of
// bounds, search and the packages built on them.
package boundstest

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
)

// Activations lists one activation of every supported kind, with parameters.
var Activations = []nn.Activation{
	{Kind: nn.Identity},
	{Kind: nn.ReLU},
	{Kind: nn.LeakyReLU, Alpha: 0.1},
	{Kind: nn.Tanh},
	{Kind: nn.Sigmoid},
	{Kind: nn.ELU, Alpha: 1},
	{Kind: nn.HardTanh, Lo: -1, Hi: 1},
}

// RandomActivation returns a random activation kind with random parameters
// (leaky ReLU slopes and ELU scales in [-0.5, 2), hard-tanh ends around 0).
func RandomActivation(rng *rand.Rand) nn.Activation {
	a := Activations[rng.IntN(len(Activations))]
	switch a.Kind {
	case nn.LeakyReLU, nn.ELU:
		a.Alpha = 2.5*rng.Float64() - 0.5
	case nn.HardTanh:
		a.Lo = -2 * rng.Float64()
		a.Hi = a.Lo + 3*rng.Float64()
	}
	return a
}

// Network returns a network with layer sizes sizes = [n_x, n_1, ..., n_f],
// normal weights and biases of standard deviation scale, hidden activations
// from acts (cycled; random when acts is empty) and an identity output layer.
func Network(rng *rand.Rand, sizes []int, scale float64, acts ...nn.Activation) *nn.Network {
	f := &nn.Network{Layers: make([]nn.Layer, len(sizes)-1)}
	for k := range f.Layers {
		w := mat.NewDense(sizes[k+1], sizes[k], nil)
		for i := range sizes[k+1] {
			for j := range sizes[k] {
				w.Set(i, j, scale*rng.NormFloat64())
			}
		}
		b := make([]float64, sizes[k+1])
		for i := range b {
			b[i] = scale * rng.NormFloat64()
		}
		act := nn.Activation{Kind: nn.Identity}
		if k < len(f.Layers)-1 {
			if len(acts) > 0 {
				act = acts[k%len(acts)]
			} else {
				act = RandomActivation(rng)
			}
		}
		f.Layers[k] = nn.Layer{W: w, B: b, Act: act}
	}
	return f
}

// Perturb returns a copy of f with every weight and bias w replaced by
// w + rel |w| N(0,1) (a stand-in for quantisation or float16 rounding).
func Perturb(rng *rand.Rand, f *nn.Network, rel float64) *nn.Network {
	g := f.Clone()
	for _, l := range g.Layers {
		raw := l.W.RawMatrix()
		for i := range raw.Rows {
			for j := range raw.Cols {
				v := raw.Data[i*raw.Stride+j]
				raw.Data[i*raw.Stride+j] = v + rel*math.Abs(v)*rng.NormFloat64()
			}
		}
		for i, v := range l.B {
			l.B[i] = v + rel*math.Abs(v)*rng.NormFloat64()
		}
	}
	return g
}

// Float16 returns a copy of f with every parameter rounded to the nearest
// IEEE half-precision value (ties to even; no overflow handling beyond
// saturating to the largest finite half).
func Float16(f *nn.Network) *nn.Network {
	g := f.Clone()
	for _, l := range g.Layers {
		raw := l.W.RawMatrix()
		for i := range raw.Rows {
			for j := range raw.Cols {
				raw.Data[i*raw.Stride+j] = roundHalf(raw.Data[i*raw.Stride+j])
			}
		}
		for i, v := range l.B {
			l.B[i] = roundHalf(v)
		}
	}
	return g
}

// roundHalf rounds v to the nearest float16 value.
func roundHalf(v float64) float64 {
	if v == 0 || math.IsNaN(v) {
		return v
	}
	const maxHalf = 65504
	if math.Abs(v) >= maxHalf {
		return math.Copysign(maxHalf, v)
	}
	_, e := math.Frexp(v) // v = m 2^e, 0.5 <= |m| < 1
	e = max(e, -13)       // subnormal halves have spacing 2^-24
	q := math.Ldexp(1, e-11)
	return math.RoundToEven(v/q) * q
}

// Trace returns the pre-activations and outputs of every layer of f at x.
func Trace(f *nn.Network, x []float64) (pre, post [][]float64) {
	h := x
	for _, l := range f.Layers {
		if l.Conv != nil {
			p, o := make([]float64, l.Out()), make([]float64, l.Out())
			l.MulVec(p, h)
			for i := range p {
				p[i] += l.B[i]
				o[i] = l.Act.Apply(p[i])
			}
			pre, post = append(pre, p), append(post, o)
			h = o
			continue
		}
		raw := l.W.RawMatrix()
		p := make([]float64, raw.Rows)
		o := make([]float64, raw.Rows)
		for i := range p {
			s := l.B[i]
			for j := range raw.Cols {
				s += raw.Data[i*raw.Stride+j] * h[j]
			}
			p[i], o[i] = s, l.Act.Apply(s)
		}
		pre, post = append(pre, p), append(post, o)
		h = o
	}
	return pre, post
}

// Uniform returns a point drawn uniformly from the box [lo, hi]; with
// probability 1/4 each coordinate is an end of its range instead (to hit
// corners and faces).
func Uniform(rng *rand.Rand, lo, hi []float64) []float64 {
	x := make([]float64, len(lo))
	for i := range x {
		switch r := rng.Float64(); {
		case r < 0.125:
			x[i] = lo[i]
		case r < 0.25:
			x[i] = hi[i]
		default:
			x[i] = lo[i] + rng.Float64()*(hi[i]-lo[i])
		}
	}
	return x
}
